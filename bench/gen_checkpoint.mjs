#!/usr/bin/env node
// Generates a Spark-shaped classic checkpoint with DuckDB for
// bench/bench_checkpoint.c: N add actions (partitioned, JSON stats of ~250
// bytes, a few with deletion vectors, tags on some), plus txn, protocol and
// metaData rows, SNAPPY, into bench/data/ (gitignored).
//
//   node bench/gen_checkpoint.mjs [--adds N] [--out DIR]
//
// Prints the file's path. The file is reused while its stamp matches.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GEN_VERSION = 1; // bump when the data below changes
let adds = 1_000_000;
let out = path.join(HERE, 'data');
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--adds') adds = parseInt(argv[++i], 10);
  else if (argv[i] === '--out') out = path.resolve(argv[++i]);
  else { console.error(`gen_checkpoint.mjs: unknown argument ${argv[i]}`); process.exit(2); }
}
fs.mkdirSync(out, { recursive: true });
const file = path.join(out, `checkpoint_${adds}.parquet`);
const stampFile = `${file}.stamp`;
const stamp = JSON.stringify({ GEN_VERSION, adds });
if (!(fs.existsSync(file) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp)) {
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await db.connect();
  const t0 = Date.now();
  // The action columns in Spark's order and types (INT32 for protocol
  // versions and DV offset/size, INT64 elsewhere, maps of strings).
  const txnT = 'STRUCT(appId VARCHAR, version BIGINT, lastUpdated BIGINT)';
  const dvT = 'STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, "offset" INTEGER, sizeInBytes INTEGER, cardinality BIGINT, maxRowIndex BIGINT)';
  const addT = `STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, tags MAP(VARCHAR, VARCHAR), deletionVector ${dvT}, baseRowId BIGINT, defaultRowCommitVersion BIGINT, stats VARCHAR)`;
  const removeT = `STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, deletionVector ${dvT}, baseRowId BIGINT, defaultRowCommitVersion BIGINT)`;
  const mdT = 'STRUCT(id VARCHAR, name VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, options MAP(VARCHAR, VARCHAR)), schemaString VARCHAR, partitionColumns VARCHAR[], configuration MAP(VARCHAR, VARCHAR), createdTime BIGINT)';
  const prT = 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER, readerFeatures VARCHAR[], writerFeatures VARCHAR[])';
  const schema = '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"value","type":"string","nullable":true,"metadata":{}},{"name":"date","type":"string","nullable":true,"metadata":{}}]}';
  const addExpr = `{
      path: 'date=2024-01-' || lpad(((i % 28) + 1)::VARCHAR, 2, '0') || '/part-' || lpad((i % 1000)::VARCHAR, 5, '0') || '-' || md5(i::VARCHAR)[1:8] || '-' || md5(i::VARCHAR)[9:12] || '-4a2b-9c3d-' || md5(i::VARCHAR)[13:24] || '.c000.snappy.parquet',
      partitionValues: MAP {'date': '2024-01-' || lpad(((i % 28) + 1)::VARCHAR, 2, '0')},
      size: (100000 + hash(i) % 900000)::BIGINT,
      modificationTime: (1700000000000 + i)::BIGINT,
      dataChange: false,
      tags: CASE WHEN i % 10 = 0 THEN MAP {'INSERTION_TIME': (1700000000000000 + i)::VARCHAR, 'OPTIMIZE_TARGET_SIZE': '268435456'} ELSE NULL END,
      deletionVector: CASE WHEN i % 20 = 0 THEN {storageType: 'u', pathOrInlineDv: substr(md5(i::VARCHAR), 1, 20), "offset": 1, sizeInBytes: 36, cardinality: (i % 7 + 1)::BIGINT, maxRowIndex: NULL::BIGINT} ELSE NULL END,
      baseRowId: NULL::BIGINT,
      defaultRowCommitVersion: NULL::BIGINT,
      stats: '{"numRecords":' || (1000 + i % 5000)::VARCHAR || ',"minValues":{"id":' || (i * 1000)::VARCHAR || ',"value":"v' || (i % 977)::VARCHAR || '"},"maxValues":{"id":' || (i * 1000 + 999)::VARCHAR || ',"value":"z' || (i % 977)::VARCHAR || '"},"nullCount":{"id":0,"value":' || (i % 3)::VARCHAR || '},"tightBounds":true}'
    }::${addT}`;
  await conn.run(`COPY (
    SELECT NULL::${txnT} AS txn, ${addExpr} AS add, NULL::${removeT} AS remove, NULL::${mdT} AS metaData, NULL::${prT} AS protocol
      FROM range(${adds}) r(i)
    UNION ALL SELECT {appId: 'bench-app', version: 7, lastUpdated: 1700000000000}::${txnT}, NULL, NULL, NULL, NULL
    UNION ALL SELECT NULL, NULL, NULL, NULL, {minReaderVersion: 1, minWriterVersion: 2, readerFeatures: NULL, writerFeatures: NULL}::${prT}
    UNION ALL SELECT NULL, NULL, NULL,
      {id: 'bench-table', name: NULL, description: NULL, format: {provider: 'parquet', options: MAP {}}, schemaString: '${schema}', partitionColumns: ['date'], configuration: MAP {}, createdTime: 1700000000000}::${mdT}, NULL
  ) TO '${file}.tmp' (FORMAT parquet, COMPRESSION snappy)`);
  fs.renameSync(`${file}.tmp`, file);
  fs.writeFileSync(stampFile, stamp);
  process.stderr.write(`gen_checkpoint.mjs: wrote ${file} (${(fs.statSync(file).size / 1e6).toFixed(0)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
console.log(file);
