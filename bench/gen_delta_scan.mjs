#!/usr/bin/env node
// Builds the table-scan benchmark's Delta table once, into bench/data/
// (gitignored), from the scan benchmark's SNAPPY file (bench/gen.mjs): its
// 10 M rows cut into 10 data files of 1 M rows (one row group each, in row
// order, so c_ts rises from file to file), plus a _delta_log with one commit
// whose add actions carry the statistics Spark would write (numRecords,
// minValues, maxValues, nullCount) computed by DuckDB from each file.
//
//   node bench/gen_delta_scan.mjs SNAPPY_FILE [--out DIR]
//
// Prints the table directory. Reused while its stamp matches.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GEN_VERSION = 2;
const FILES = 10;
const argv = process.argv.slice(2);
let src = null, outDir = path.join(HERE, 'data');
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--out') outDir = path.resolve(argv[++i]);
  else src = path.resolve(argv[i]);
}
if (!src) { console.error('usage: gen_delta_scan.mjs SNAPPY_FILE [--out DIR]'); process.exit(2); }
const table = path.join(outDir, `delta_scan_${path.basename(src, '.parquet')}`);
const stampFile = path.join(table, '.stamp');
const stamp = JSON.stringify({ GEN_VERSION, src: path.basename(src), size: fs.statSync(src).size });
if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) {
  console.log(table);
  process.exit(0);
}
fs.rmSync(table, { recursive: true, force: true });
fs.mkdirSync(path.join(table, '_delta_log'), { recursive: true });
const db = await DuckDBInstance.create(':memory:', { threads: '1' }); // threads=1 keeps row order
const conn = await db.connect();
await conn.run("SET TimeZone = 'UTC'");
const lit = (s) => `'${s.replace(/'/g, "''")}'`;
const total = Number((await conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${lit(src)})`)).getRows()[0][0]);
const per = Math.ceil(total / FILES);
const cols = [
  ['c_int64', 'long'], ['c_int32', 'integer'], ['c_double', 'double'], ['c_str_low', 'string'],
  ['c_str_high', 'string'], ['c_date', 'date'], ['c_ts', 'timestamp'], ['c_bool', 'boolean'],
];
const schema = { type: 'struct', fields: cols.map(([name, type]) => ({ name, type, nullable: true, metadata: {} })) };
const now = Date.now();
const actions = [
  { commitInfo: { timestamp: now, operation: 'WRITE', engineInfo: 'deltac-bench' } },
  { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
  { metaData: { id: 'bench-delta-scan', format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify(schema),
                partitionColumns: [], configuration: {}, createdTime: now } },
];
const t0 = Date.now();
for (let k = 0; k < FILES; k++) {
  const name = `part-${String(k).padStart(5, '0')}-bench.snappy.parquet`;
  const f = path.join(table, name);
  // TIMESTAMPTZ: the file's timestamps are UTC-adjusted, as a Delta `timestamp` column's are.
  await conn.run(`COPY (SELECT * REPLACE (c_ts::TIMESTAMPTZ AS c_ts) FROM read_parquet(${lit(src)})
                        LIMIT ${per} OFFSET ${k * per})
                  TO ${lit(f)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${per})`);
  const aggs = cols.map(([c, t]) => (t === 'boolean' ? 'NULL, NULL' : t === 'timestamp'
    ? `strftime(min("${c}"), '%Y-%m-%dT%H:%M:%S.%g') || 'Z', strftime(max("${c}"), '%Y-%m-%dT%H:%M:%S.%g') || 'Z'`
    : t === 'date' ? `strftime(min("${c}"), '%Y-%m-%d'), strftime(max("${c}"), '%Y-%m-%d')`
    : `min("${c}"), max("${c}")`) + `, count(*) - count("${c}")`).join(', ');
  const row = (await conn.runAndReadAll(`SELECT count(*), ${aggs} FROM read_parquet(${lit(f)})`)).getRows()[0];
  // Written by hand: 64-bit integers must stay exact (a rounded minimum
  // would no longer bound the file's values).
  const json = (x) => (typeof x === 'bigint' ? x.toString() : JSON.stringify(x));
  const section = (pick) => '{' + cols.map(([c, t], i) => [c, t, row.slice(1 + 3 * i, 4 + 3 * i)])
    .filter(([, t, r]) => pick !== 2 ? r[0] !== null && t !== 'boolean' : true)
    .map(([c, , r]) => `${JSON.stringify(c)}:${json(r[pick])}`).join(',') + '}';
  const stats = `{"numRecords":${json(row[0])},"minValues":${section(0)},"maxValues":${section(1)},` +
                `"nullCount":${section(2)}}`;
  actions.push({ add: { path: name, partitionValues: {}, size: fs.statSync(f).size, modificationTime: now,
                        dataChange: true, stats } });
}
fs.writeFileSync(path.join(table, '_delta_log', '00000000000000000000.json'),
                 actions.map((a) => JSON.stringify(a)).join('\n') + '\n');
fs.writeFileSync(stampFile, stamp);
process.stderr.write(`gen_delta_scan.mjs: wrote ${table} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
console.log(table);
