#!/usr/bin/env node
// Generates the two synthetic Delta tables of the log-replay benchmark
// (bench/log_run.sh) into bench/data/ (gitignored), once; a table is reused
// while its bench_meta.json matches this generator's version and sizes.
//
//   node bench/gen_log_tables.mjs [--files N] [--tail C] [--commits M] [--out DIR]
//
// log_cp_<N>:   a cleaned-up log: a classic single-file Parquet checkpoint at
//               version CP_VERSION (written by DuckDB, Spark-shaped: txn, add,
//               remove, metaData, protocol columns; add = path, partitionValues
//               map, size, modificationTime, dataChange, tags map, stats JSON)
//               holding N live files and some tombstones, then C JSON commits
//               (3 adds and 2 removes of checkpoint files each, every 10th also
//               removes a file a commit added, every other one with a
//               commitInfo), and _last_checkpoint. No commit before the
//               checkpoint exists (earliest commit > 0).
// log_json_<M>: M JSON commits (versions 0..M-1), no checkpoint: 4 adds with
//               stats and a commitInfo each, every other one also removes a
//               file of the commit before.
//
// Prints one JSON line per table: {"name", "path", "checkpoint" (file or
// null), "num_files", "num_records"} -- the counts `deltac info` must report.
// Runs DuckDB on one thread (CPU-polite; run.sh runs this under nice).
import { DuckDBInstance } from '@duckdb/node-api';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GEN_VERSION = 1; // bump when the data below changes
const CP_VERSION = 10000;
let nFiles = 1_000_000, tail = 1000, nCommits = 20_000;
let out = path.join(HERE, 'data');
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--files') nFiles = parseInt(argv[++i], 10);
  else if (argv[i] === '--tail') tail = parseInt(argv[++i], 10);
  else if (argv[i] === '--commits') nCommits = parseInt(argv[++i], 10);
  else if (argv[i] === '--out') out = path.resolve(argv[++i]);
  else { console.error(`gen_log_tables.mjs: unknown argument ${argv[i]}`); process.exit(2); }
}

const md5 = (s) => crypto.createHash('md5').update(s).digest('hex');
const pad = (n, w) => String(n).padStart(w, '0');
const logName = (v) => `${pad(v, 20)}.json`;
const T0 = 1700000000000;
const SCHEMA = '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"value","type":"string","nullable":true,"metadata":{}},{"name":"date","type":"string","nullable":true,"metadata":{}}]}';
const protocol = { protocol: { minReaderVersion: 1, minWriterVersion: 2 } };
const metaData = {
  metaData: {
    id: 'bench-log-table', format: { provider: 'parquet', options: {} }, schemaString: SCHEMA,
    partitionColumns: ['date'], configuration: {}, createdTime: T0,
  },
};
const stats = (n, i) =>
  `{"numRecords":${n},"minValues":{"id":${i * 1000},"value":"v${i % 977}"},"maxValues":{"id":${i * 1000 + 999},"value":"z${i % 977}"},"nullCount":{"id":0,"value":${i % 3}},"tightBounds":true}`;
const commitInfo = (v, op, adds, removes) => ({
  commitInfo: {
    timestamp: T0 + v * 1000, operation: op,
    operationParameters: { mode: 'Append', partitionBy: '["date"]' },
    readVersion: v - 1, isolationLevel: 'Serializable', isBlindAppend: removes === 0,
    operationMetrics: { numFiles: String(adds), numRemovedFiles: String(removes), numOutputRows: String(adds * 1000), numOutputBytes: String(adds * 500000) },
    engineInfo: 'Apache-Spark/3.5.0 Delta-Lake/3.1.0', txnId: md5(`txn${v}`).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'),
  },
});
// A file action for a file a commit adds (seed = a unique string).
function commitFile(seed, day, records, i) {
  const h = md5(seed);
  const date = `2024-02-${pad(day % 28 + 1, 2)}`;
  return {
    path: `date=${date}/part-00000-${h.slice(0, 8)}-${h.slice(8, 12)}-4b3c-8d4e-${h.slice(12, 24)}.c000.snappy.parquet`,
    partitionValues: { date }, size: 100000 + (parseInt(h.slice(0, 6), 16) % 900000), records, i,
  };
}
const addLine = (f, v) => JSON.stringify({
  add: { path: f.path, partitionValues: f.partitionValues, size: f.size, modificationTime: T0 + v * 1000, dataChange: true, stats: stats(f.records, f.i) },
});
const removeLine = (f, v) => JSON.stringify({
  remove: { path: f.path, deletionTimestamp: T0 + v * 1000, dataChange: true, extendedFileMetadata: true, partitionValues: f.partitionValues, size: f.size },
});

function fresh(dir, stamp) {
  const meta = path.join(dir, 'bench_meta.json');
  if (!fs.existsSync(meta)) return null;
  const m = JSON.parse(fs.readFileSync(meta, 'utf8'));
  return JSON.stringify(m.stamp) === JSON.stringify(stamp) ? m : null;
}
function finish(dir, stamp, info) {
  fs.writeFileSync(path.join(dir, 'bench_meta.json'), JSON.stringify({ stamp, ...info }));
  return info;
}

// ---- 1. checkpoint + commit tail ----
async function checkpointTable() {
  const name = `log_cp_${nFiles}`;
  const dir = path.join(out, name);
  const stamp = { GEN_VERSION, nFiles, tail, CP_VERSION };
  const m = fresh(dir, stamp);
  if (m) return m;
  const t0 = Date.now();
  fs.rmSync(dir, { recursive: true, force: true });
  const log = path.join(dir, '_delta_log');
  fs.mkdirSync(log, { recursive: true });
  const cpName = `${pad(CP_VERSION, 20)}.checkpoint.parquet`;
  const cpFile = path.join(log, cpName);
  const nTomb = Math.max(1, Math.floor(nFiles / 100));
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await db.connect();
  const txnT = 'STRUCT(appId VARCHAR, version BIGINT, lastUpdated BIGINT)';
  const addT = 'STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, tags MAP(VARCHAR, VARCHAR), stats VARCHAR)';
  const removeT = 'STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT)';
  const mdT = 'STRUCT(id VARCHAR, name VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, options MAP(VARCHAR, VARCHAR)), schemaString VARCHAR, partitionColumns VARCHAR[], configuration MAP(VARCHAR, VARCHAR), createdTime BIGINT)';
  const prT = 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER)';
  // Checkpoint file i: the same path cpFileAt(i) computes in JS below.
  const date = `'2024-01-' || lpad(((i % 28) + 1)::VARCHAR, 2, '0')`;
  const cpPath = `'date=' || ${date} || '/part-' || lpad((i % 1000)::VARCHAR, 5, '0') || '-' || md5(i::VARCHAR)[1:8] || '-' || md5(i::VARCHAR)[9:12] || '-4a2b-9c3d-' || md5(i::VARCHAR)[13:24] || '.c000.snappy.parquet'`;
  const addExpr = `{
      path: ${cpPath}, partitionValues: MAP {'date': ${date}},
      size: (100000 + i % 900000)::BIGINT, modificationTime: (${T0} + i)::BIGINT, dataChange: false,
      tags: CASE WHEN i % 10 = 0 THEN MAP {'INSERTION_TIME': (1700000000000000 + i)::VARCHAR, 'OPTIMIZE_TARGET_SIZE': '268435456'} ELSE NULL END,
      stats: '{"numRecords":' || (1000 + i % 5000)::VARCHAR || ',"minValues":{"id":' || (i * 1000)::VARCHAR || ',"value":"v' || (i % 977)::VARCHAR || '"},"maxValues":{"id":' || (i * 1000 + 999)::VARCHAR || ',"value":"z' || (i % 977)::VARCHAR || '"},"nullCount":{"id":0,"value":' || (i % 3)::VARCHAR || '},"tightBounds":true}'
    }::${addT}`;
  const tombExpr = `{
      path: 'date=2023-12-' || lpad(((i % 28) + 1)::VARCHAR, 2, '0') || '/part-00000-' || md5('t' || i::VARCHAR) || '.c000.snappy.parquet',
      deletionTimestamp: (${T0} + i)::BIGINT, dataChange: false, extendedFileMetadata: true,
      partitionValues: MAP {'date': '2023-12-' || lpad(((i % 28) + 1)::VARCHAR, 2, '0')}, size: (100000 + i)::BIGINT
    }::${removeT}`;
  await conn.run(`COPY (
    SELECT NULL::${txnT} AS txn, NULL::${addT} AS add, NULL::${removeT} AS remove, NULL::${mdT} AS metaData, {minReaderVersion: 1, minWriterVersion: 2}::${prT} AS protocol
    UNION ALL SELECT NULL, NULL, NULL,
      {id: 'bench-log-table', name: NULL, description: NULL, format: {provider: 'parquet', options: MAP {}}, schemaString: '${SCHEMA}', partitionColumns: ['date'], configuration: MAP {}, createdTime: ${T0}}::${mdT}, NULL
    UNION ALL SELECT {appId: 'bench-app', version: 7, lastUpdated: ${T0}}::${txnT}, NULL, NULL, NULL, NULL
    UNION ALL SELECT NULL, ${addExpr}, NULL, NULL, NULL FROM range(${nFiles}) r(i)
    UNION ALL SELECT NULL, NULL, ${tombExpr}, NULL, NULL FROM range(${nTomb}) r(i)
  ) TO '${cpFile}.tmp' (FORMAT parquet, COMPRESSION snappy)`);
  fs.renameSync(`${cpFile}.tmp`, cpFile);

  // Live files: the checkpoint's (numRecords 1000 + i % 5000) plus the commits'.
  let numFiles = nFiles, numRecords = 0;
  for (let i = 0; i < nFiles; i++) numRecords += 1000 + (i % 5000);
  const cpFileAt = (i) => {
    const h = md5(String(i));
    const d = `2024-01-${pad(i % 28 + 1, 2)}`;
    return {
      path: `date=${d}/part-${pad(i % 1000, 5)}-${h.slice(0, 8)}-${h.slice(8, 12)}-4a2b-9c3d-${h.slice(12, 24)}.c000.snappy.parquet`,
      partitionValues: { date: d }, size: 100000 + (i % 900000), records: 1000 + (i % 5000),
    };
  };
  const added = new Map(); // version -> files it added
  let removedCp = 0;
  for (let c = 1; c <= tail; c++) {
    const v = CP_VERSION + c;
    const lines = [];
    const adds = [];
    for (let k = 0; k < 3; k++) adds.push(commitFile(`c${v}-${k}`, v + k, 100 + k, v * 10 + k));
    added.set(v, adds);
    const removes = [];
    for (let j = 0; j < 2 && removedCp < nFiles; j++) removes.push(cpFileAt((removedCp++ * 499) % nFiles));
    if (c % 10 === 0 && added.has(v - 5)) removes.push(added.get(v - 5)[0]);
    if (c % 2) lines.push(JSON.stringify(commitInfo(v, removes.length ? 'MERGE' : 'WRITE', adds.length, removes.length)));
    for (const f of adds) lines.push(addLine(f, v));
    for (const f of removes) lines.push(removeLine(f, v));
    fs.writeFileSync(path.join(log, logName(v)), lines.join('\n') + '\n');
    numFiles += adds.length - removes.length;
    for (const f of adds) numRecords += f.records;
    for (const f of removes) numRecords -= f.records;
  }
  fs.writeFileSync(path.join(log, '_last_checkpoint'), JSON.stringify({
    version: CP_VERSION, size: nFiles + nTomb + 3, sizeInBytes: fs.statSync(cpFile).size, numOfAddFiles: nFiles,
  }) + '\n');
  process.stderr.write(`gen_log_tables.mjs: wrote ${dir} (checkpoint ${(fs.statSync(cpFile).size / 1e6).toFixed(0)} MB, ${tail} commits) in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return finish(dir, stamp, { name, path: dir, checkpoint: cpFile, num_files: numFiles, num_records: numRecords });
}

// ---- 2. JSON commits only ----
function jsonTable() {
  const name = `log_json_${nCommits}`;
  const dir = path.join(out, name);
  const stamp = { GEN_VERSION, nCommits };
  const m = fresh(dir, stamp);
  if (m) return m;
  const t0 = Date.now();
  fs.rmSync(dir, { recursive: true, force: true });
  const log = path.join(dir, '_delta_log');
  fs.mkdirSync(log, { recursive: true });
  let numFiles = 0, numRecords = 0;
  let prev = null;
  for (let v = 0; v < nCommits; v++) {
    const lines = [JSON.stringify(commitInfo(v, v ? 'WRITE' : 'CREATE TABLE AS SELECT', 4, v % 2 === 0 && prev ? 1 : 0))];
    if (v === 0) lines.push(JSON.stringify(protocol), JSON.stringify(metaData));
    const adds = [];
    for (let k = 0; k < 4; k++) adds.push(commitFile(`j${v}-${k}`, v, 1000 + ((v * 4 + k) % 5000), v * 4 + k));
    for (const f of adds) lines.push(addLine(f, v));
    if (v % 2 === 0 && prev) {
      lines.push(removeLine(prev[3], v));
      numFiles--;
      numRecords -= prev[3].records;
    }
    fs.writeFileSync(path.join(log, logName(v)), lines.join('\n') + '\n');
    const when = new Date(T0 + v * 1000);
    fs.utimesSync(path.join(log, logName(v)), when, when);
    numFiles += adds.length;
    for (const f of adds) numRecords += f.records;
    prev = adds;
  }
  process.stderr.write(`gen_log_tables.mjs: wrote ${dir} (${nCommits} commits) in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return finish(dir, stamp, { name, path: dir, checkpoint: null, num_files: numFiles, num_records: numRecords });
}

fs.mkdirSync(out, { recursive: true });
for (const info of [await checkpointTable(), jsonTable()]) console.log(JSON.stringify(info));
