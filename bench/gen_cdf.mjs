#!/usr/bin/env node
// Generates the change-feed benchmark's table (bench/cdf_run.sh) once, into
// bench/data/cdf_<commits>x<rows>/ (gitignored): a Delta table with the
// change data feed enabled and COMMITS commits of ROWS rows each, Parquet
// written by DuckDB, the _delta_log written here the way Spark writes it:
//
//   version 0          create + append (metaData, protocol, one add)
//   v % 4 == 0 or 1    append: one new file of ROWS rows (insert rows come
//                      from the add)
//   v % 4 == 2         update of every row of one live file: remove it, add
//                      its rewrite, and a cdc file in _change_data/ with the
//                      ROWS pre-images and ROWS post-images
//   v % 4 == 3         delete of one whole live file: a remove only (Spark
//                      writes no cdc file for whole-file deletes; its rows
//                      are read from the removed file)
// so the latest snapshot keeps a quarter of the files (for the plain scan).
//
// Columns: id long, grp int, value double, name string (SNAPPY). Commit file
// times are set one minute apart. Prints one JSON line: {"path", "commits",
// "change_rows" (the whole range), "live_rows" (the latest snapshot)}.
//
//   node bench/gen_cdf.mjs [--commits N] [--rows R] [--out DIR]
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GEN_VERSION = 1; // bump when the data below changes
let commits = 100, rows = 100_000;
let out = path.join(HERE, 'data');
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--commits') commits = parseInt(argv[++i], 10);
  else if (argv[i] === '--rows') rows = parseInt(argv[++i], 10);
  else if (argv[i] === '--out') out = path.resolve(argv[++i]);
  else { console.error(`gen_cdf.mjs: unknown argument ${argv[i]}`); process.exit(2); }
}
const dir = path.join(out, `cdf_${commits}x${rows}`);
const metaFile = path.join(dir, 'bench_meta.json');
const stamp = { GEN_VERSION, commits, rows };

function cached() {
  try {
    const m = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    return m.GEN_VERSION === GEN_VERSION && m.commits === commits && m.rows === rows ? m : null;
  } catch { return null; }
}

let meta = cached();
if (!meta) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, '_delta_log'), { recursive: true });
  fs.mkdirSync(path.join(dir, '_change_data'), { recursive: true });
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await db.connect();
  const t0 = Date.now();
  process.stderr.write(`gen_cdf.mjs: writing ${commits} commits of ${rows} rows ... `);
  // File k holds ids [k*rows, (k+1)*rows); `gen` changes the other values on update.
  const select = (k, gen) => `SELECT (${k} * ${rows} + i)::BIGINT AS id, ((i * 7 + ${gen}) % 100)::INTEGER AS grp,
      (hash(i + ${k * 1000 + gen}) % 1000000) / 100.0 AS value,
      'name-' || (${k} * ${rows} + i)::VARCHAR || '-' || ${gen}::VARCHAR AS name FROM range(${rows}) r(i)`;
  const copy = async (sql, rel) => {
    await conn.run(`COPY (${sql}) TO '${path.join(dir, rel)}' (FORMAT parquet, COMPRESSION snappy)`);
    return fs.statSync(path.join(dir, rel)).size;
  };
  const schema = JSON.stringify({ type: 'struct', fields: [
    { name: 'id', type: 'long', nullable: true, metadata: {} },
    { name: 'grp', type: 'integer', nullable: true, metadata: {} },
    { name: 'value', type: 'double', nullable: true, metadata: {} },
    { name: 'name', type: 'string', nullable: true, metadata: {} }] });
  const base = Date.UTC(2024, 0, 1);
  const live = []; // {k, gen, rel, size}
  let nextK = 0, changeRows = 0;
  const addAction = (f, ts) => ({ add: { path: f.rel, partitionValues: {}, size: f.size, modificationTime: ts,
    dataChange: true, stats: JSON.stringify({ numRecords: rows }) } });
  const removeAction = (f, ts) => ({ remove: { path: f.rel, deletionTimestamp: ts, dataChange: true,
    extendedFileMetadata: true, partitionValues: {}, size: f.size } });
  for (let v = 0; v < commits; v++) {
    const ts = base + v * 60_000;
    const actions = [];
    const op = v % 4 <= 1 ? 'WRITE' : v % 4 === 2 ? 'UPDATE' : 'DELETE';
    actions.push({ commitInfo: { timestamp: ts, operation: op, operationParameters: {}, isBlindAppend: op === 'WRITE' } });
    if (v === 0) {
      actions.push({ protocol: { minReaderVersion: 1, minWriterVersion: 4 } });
      actions.push({ metaData: { id: 'cdf-bench', format: { provider: 'parquet', options: {} }, schemaString: schema,
        partitionColumns: [], configuration: { 'delta.enableChangeDataFeed': 'true' }, createdTime: ts } });
    }
    if (op === 'WRITE' || live.length === 0) {
      const k = nextK++;
      const rel = `part-${String(k).padStart(5, '0')}-g0.snappy.parquet`;
      const f = { k, gen: 0, rel, size: await copy(select(k, 0), rel) };
      live.push(f);
      actions.push(addAction(f, ts));
      changeRows += rows;
    } else if (op === 'UPDATE') {
      const old = live.shift(); // the oldest live file, so updates move through the table
      const gen = old.gen + 1;
      const rel = `part-${String(old.k).padStart(5, '0')}-g${gen}.snappy.parquet`;
      const f = { k: old.k, gen, rel, size: await copy(select(old.k, gen), rel) };
      const cdcRel = `_change_data/cdc-${String(v).padStart(5, '0')}.snappy.parquet`;
      const cdcSize = await copy(`SELECT *, 'update_preimage' AS _change_type FROM (${select(old.k, old.gen)})
        UNION ALL SELECT *, 'update_postimage' AS _change_type FROM (${select(old.k, gen)})`, cdcRel);
      live.push(f);
      actions.push(removeAction(old, ts), addAction(f, ts));
      actions.push({ cdc: { path: cdcRel, partitionValues: {}, size: cdcSize, dataChange: false } });
      changeRows += 2 * rows;
    } else {
      const old = live.splice(Math.floor(live.length / 2), 1)[0];
      actions.push(removeAction(old, ts));
      changeRows += rows;
    }
    const name = path.join(dir, '_delta_log', `${String(v).padStart(20, '0')}.json`);
    fs.writeFileSync(name, actions.map((a) => JSON.stringify(a)).join('\n') + '\n');
    fs.utimesSync(name, new Date(ts), new Date(ts));
  }
  meta = { ...stamp, path: dir, commits, change_rows: changeRows, live_rows: live.length * rows };
  fs.writeFileSync(metaFile, JSON.stringify(meta));
  process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
console.log(JSON.stringify({ path: dir, commits, change_rows: meta.change_rows, live_rows: meta.live_rows }));
