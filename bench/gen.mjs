#!/usr/bin/env node
// Generates the scan benchmark's input once, with DuckDB, into bench/data/
// (gitignored): 10 M rows x 8 columns, ~10% nulls in each column, row groups
// of 1 M rows, written three times: SNAPPY, ZSTD and UNCOMPRESSED.
//
//   node bench/gen.mjs [--rows N] [--out DIR]
//
// Prints the paths of the three files. Files are reused while their stamp
// (rows + this generator's version) matches, so a second run is instant.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const GEN_VERSION = 1; // bump when the data below changes
let rows = 10_000_000;
let out = path.join(HERE, 'data');
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--rows') rows = parseInt(argv[++i], 10);
  else if (argv[i] === '--out') out = path.resolve(argv[++i]);
  else { console.error(`gen.mjs: unknown argument ${argv[i]}`); process.exit(2); }
}
fs.mkdirSync(out, { recursive: true });

const CODECS = ['snappy', 'zstd', 'uncompressed'];
const fileFor = (codec) => path.join(out, `scan_${rows}_${codec}.parquet`);
const stampFor = (codec) => `${fileFor(codec)}.stamp`;
const stamp = JSON.stringify({ GEN_VERSION, rows });
const fresh = (codec) => fs.existsSync(fileFor(codec)) && fs.existsSync(stampFor(codec))
  && fs.readFileSync(stampFor(codec), 'utf8') === stamp;

const todo = CODECS.filter((c) => !fresh(c));
if (todo.length) {
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  const conn = await db.connect();
  // ~10% nulls per column, decorrelated between columns (different hash seeds).
  const n = (k, expr) => `CASE WHEN hash(i + ${k * 1000003}) % 10 = 0 THEN NULL ELSE ${expr} END`;
  const t0 = Date.now();
  process.stderr.write(`gen.mjs: generating ${rows} rows ... `);
  await conn.run(`CREATE TABLE scan AS SELECT
      ${n(1, '(hash(i) >> 1)::BIGINT - 4611686018427387904')} AS c_int64,
      ${n(2, '(i % 1000000)::INTEGER - 500000')} AS c_int32,
      ${n(3, '(hash(i + 7) % 1000000000) / 1000.0 - 500000.0')}::DOUBLE AS c_double,
      ${n(4, "'category_' || (hash(i + 11) % 100)::VARCHAR")} AS c_str_low,
      ${n(5, "'user-' || i::VARCHAR || '-' || (hash(i + 13) % 1000000)::VARCHAR")} AS c_str_high,
      ${n(6, "DATE '2000-01-01' + (hash(i + 17) % 10000)::INTEGER")} AS c_date,
      ${n(7, "TIMESTAMP '2020-01-01 00:00:00' + to_microseconds((i * 1000003)::BIGINT)")} AS c_ts,
      ${n(8, 'hash(i + 19) % 2 = 0')} AS c_bool
    FROM range(${rows}) r(i)`);
  process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  for (const codec of todo) {
    const f = fileFor(codec), tmp = `${f}.tmp`;
    const t1 = Date.now();
    await conn.run(`COPY (SELECT * FROM scan) TO '${tmp}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE 1000000)`);
    fs.renameSync(tmp, f);
    fs.writeFileSync(stampFor(codec), stamp);
    process.stderr.write(`gen.mjs: wrote ${f} (${(fs.statSync(f).size / 1e6).toFixed(0)} MB) in ${((Date.now() - t1) / 1000).toFixed(1)} s\n`);
  }
}
for (const codec of CODECS) console.log(fileFor(codec));
