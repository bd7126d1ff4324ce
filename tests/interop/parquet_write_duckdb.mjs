#!/usr/bin/env node
// Differential test of deltac's Parquet WRITER against DuckDB.
//
//   node tests/interop/parquet_write_duckdb.mjs --deltac build/deltac [--only REGEX] [--keep DIR] [--jobs N]
//
// DuckDB writes a source file per column type x null density (every Delta
// type, nested lists/structs/maps included). `deltac parquet copy` re-encodes
// each source with a matrix of writer options (codecs, dictionary on/off,
// data page v1/v2, DELTA_BINARY_PACKED, small pages and row groups). DuckDB
// then reads the source and deltac's file and they must agree: the same
// column names and types, and the same rows in the same order (each row
// compared as DuckDB's text of the whole row). For files with one row group
// the column chunk statistics deltac wrote are checked against DuckDB's own
// min/max/null count of the column; long strings must have truncated bounds
// that still bound. Prints PASS/FAIL per check and `N passed, M failed`.

import { DuckDBInstance } from '@duckdb/node-api';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const argv = process.argv.slice(2);
const opt = { deltac: null, only: null, keep: null, jobs: Math.min(2, os.cpus().length) };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--deltac') opt.deltac = path.resolve(argv[++i]);
  else if (a === '--only') opt.only = new RegExp(argv[++i]);
  else if (a === '--keep') opt.keep = argv[++i];
  else if (a === '--jobs') opt.jobs = Math.max(1, parseInt(argv[++i], 10));
  else { console.error(`parquet_write_duckdb: unknown argument ${a}`); process.exit(2); }
}
if (!opt.deltac) { console.error('usage: parquet_write_duckdb.mjs --deltac PATH [--only REGEX] [--keep DIR] [--jobs N]'); process.exit(2); }

const ROWS = 3000;
// gen: SQL of the row number i (BIGINT). stats: check chunk min/max against
// DuckDB's min()/max() (types whose text forms agree); trunc: long strings.
const TYPES = [
  { name: 'bool', gen: '(i % 3 = 0)' },
  { name: 'int8', gen: '(((i * 37) % 256) - 128)::TINYINT', stats: true },
  { name: 'int16', gen: '(((i * 7919) % 65536) - 32768)::SMALLINT', stats: true },
  { name: 'int32', gen: '((hash(i) % 4294967296)::BIGINT - 2147483648)::INTEGER', stats: true },
  { name: 'int32_seq', gen: '(i * 3 - 1000)::INTEGER', stats: true },
  { name: 'int64', gen: '((hash(i) >> 1)::BIGINT * (1 - 2 * (i % 2)))', stats: true },
  { name: 'int64_seq', gen: '(i * 1000003 - 5)::BIGINT', stats: true },
  { name: 'uint32', gen: '(hash(i) % 4294967296)::UINTEGER', stats: true },
  { name: 'float', gen: "CASE i % 50 WHEN 1 THEN 'nan'::FLOAT WHEN 2 THEN '-inf'::FLOAT WHEN 3 THEN '-0.0'::FLOAT ELSE ((i * 1.37 - 1000.0) * pow(10, (i % 20) - 10))::FLOAT END" },
  { name: 'double', gen: "CASE i % 50 WHEN 1 THEN 'nan'::DOUBLE WHEN 2 THEN 'inf'::DOUBLE WHEN 3 THEN '-0.0'::DOUBLE ELSE ((i * 1.37 - 1000.0) * pow(10, (i % 40) - 20)) END" },
  { name: 'dec4_2', gen: "((((i * 37) % 19999) - 9999) / 100.0)::DECIMAL(4,2)" },
  { name: 'dec18_6', gen: "((hash(i) % 1000000000000000000)::HUGEINT - 500000000000000000)::DECIMAL(38,0)::DECIMAL(18,0) / 1000000::DECIMAL(18,6)" },
  { name: 'dec38_10', gen: "((CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || ((hash(i)::HUGEINT * 1000000000000 + hash(i + 1)) % 10000000000000000000000000000)::VARCHAR || '.' || lpad((hash(i + 2) % 10000000000)::VARCHAR, 10, '0'))::DECIMAL(38,10)" },
  { name: 'str', gen: "'v' || (i % 100)", stats: true },
  { name: 'str_unique', gen: "CASE WHEN i % 7 = 0 THEN '' ELSE md5(i::VARCHAR) || 'é€𝄞' END", stats: true },
  { name: 'str_long', gen: "repeat(chr(97 + (i % 26)::INTEGER), 60 + (i % 50)::INTEGER) || i::VARCHAR", trunc: true },
  { name: 'str_big', gen: "CASE WHEN i % 500 = 0 THEN repeat('z', 200000) ELSE 's' || i END" },
  { name: 'blob', gen: "unhex(md5(i::VARCHAR))" },
  { name: 'date', gen: "(DATE '2000-01-01' + ((i * 7) % 20000)::INTEGER - 10000)", stats: true },
  { name: 'ts', gen: "make_timestamp((i * 1234567891 - 1000000000000000)::BIGINT)::TIMESTAMPTZ" },
  { name: 'ts_ntz', gen: "make_timestamp((i * 1234567891 - 1000000000000000)::BIGINT)" },
  { name: 'uuid', gen: "md5(i::VARCHAR)::UUID" },
  { name: 'list_int', gen: "CASE i % 5 WHEN 0 THEN []::INTEGER[] WHEN 1 THEN [NULL]::INTEGER[] ELSE [i, i + 1, NULL, i * 2]::INTEGER[] END" },
  { name: 'list_list_str', gen: "[['a' || i, NULL], [], NULL, ['b']]" },
  { name: 'struct', gen: "{'a': i::INTEGER, 'b': 'x' || (i % 10), 'c': CASE WHEN i % 4 = 0 THEN NULL ELSE i * 0.5 END}" },
  { name: 'map', gen: "MAP(['k' || (i % 3), 'z' || i], [i::INTEGER, NULL])" },
  { name: 'struct_nested', gen: "{'l': [i, NULL], 'm': MAP([i::INTEGER], ['v' || i]), 's': {'x': i::INTEGER, 'd': (i % 1000)::DECIMAL(10,2)}}" },
  { name: 'list_struct', gen: "[{'x': i::INTEGER, 'y': NULL::VARCHAR}, NULL, {'x': NULL::INTEGER, 'y': 'q' || (i % 3)}]" },
  { name: 'map_list', gen: "MAP(['a', 'b'], [[i, i + 1], NULL])" },
];
const NULLS = ['none', 'some', 'all'];
const OPTIONS = [
  { name: 'default', args: [] },
  { name: 'zstd-v2', args: ['--codec', 'zstd', '--page-v2'] },
  { name: 'gzip-plain', args: ['--codec', 'gzip', '--dictionary', 'off'] },
  { name: 'lz4-delta-v2-plain', args: ['--codec', 'lz4_raw', '--delta', '--page-v2', '--dictionary', 'off'] },
  { name: 'uncompressed-small', args: ['--codec', 'uncompressed', '--page-size', '2000', '--row-group-rows', '1100'] },
  { name: 'snappy-pagerows-v2-delta', args: ['--page-rows', '97', '--page-v2', '--delta', '--batch-rows', '333'] },
];

function colExpr(t, nulls) {
  if (nulls === 'none') return t.gen;
  if (nulls === 'all') return `CASE WHEN true THEN NULL ELSE ${t.gen} END`;
  return `CASE WHEN hash(i + 17) % 10 < 3 THEN NULL ELSE ${t.gen} END`;
}

const cases = [];
for (const t of TYPES)
  for (const n of NULLS) {
    const opts = n === 'all' ? OPTIONS.slice(0, 2) : OPTIONS;
    cases.push({ name: `${t.name}-${n}`, types: [t], nulls: n, rows: ROWS, opts });
  }
cases.push({ name: 'all-types-some', types: TYPES, nulls: 'some', rows: ROWS, opts: OPTIONS });
cases.push({ name: 'all-types-empty', types: TYPES, nulls: 'some', rows: 0, opts: OPTIONS.slice(0, 2) });
cases.push({ name: 'all-types-one-row', types: TYPES, nulls: 'none', rows: 1, opts: OPTIONS.slice(0, 3) });
const selected = cases.filter((c) => !opt.only || opt.only.test(c.name));

function runDeltac(args) {
  return new Promise((resolve) => {
    execFile(opt.deltac, args, { maxBuffer: 1 << 28, encoding: 'utf8', timeout: 300000 },
      (err, stdout, stderr) => resolve({ err, stdout, stderr }));
  });
}

const q = (s) => `'${s.replace(/'/g, "''")}'`;

async function rows(conn, sql) { return (await conn.runAndReadAll(sql)).getRows(); }

async function compareFiles(conn, src, out) {
  const ts = await rows(conn, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${q(src)}))`);
  const to = await rows(conn, `SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${q(out)}))`);
  if (JSON.stringify(ts) !== JSON.stringify(to)) return `schema differs: ${JSON.stringify(ts)} vs ${JSON.stringify(to)}`;
  const r = await rows(conn, `WITH a AS (SELECT row_number() OVER () AS rn, t::VARCHAR AS v FROM read_parquet(${q(src)}) t),
    b AS (SELECT row_number() OVER () AS rn, t::VARCHAR AS v FROM read_parquet(${q(out)}) t)
    SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b),
      (SELECT min(rn) FROM a FULL JOIN b USING (rn) WHERE a.v IS DISTINCT FROM b.v)`);
  const [na, nb, first] = r[0];
  if (na !== nb) return `row count ${nb}, expected ${na}`;
  if (first !== null) {
    const d = await rows(conn, `WITH a AS (SELECT row_number() OVER () AS rn, t::VARCHAR AS v FROM read_parquet(${q(src)}) t),
      b AS (SELECT row_number() OVER () AS rn, t::VARCHAR AS v FROM read_parquet(${q(out)}) t)
      SELECT a.v, b.v FROM a JOIN b USING (rn) WHERE rn = ${first}`);
    return `row ${first} differs: ${String(d[0]?.[0]).slice(0, 300)} vs ${String(d[0]?.[1]).slice(0, 300)}`;
  }
  return null;
}

async function checkStats(conn, c, out) {
  const groups = await rows(conn, `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${q(out)})`);
  if (Number(groups[0][0]) !== 1) return null;
  for (const t of c.types) {
    if (!t.stats && !t.trunc) continue;
    const col = `c_${t.name}`;
    const md = await rows(conn, `SELECT stats_min_value, stats_max_value, stats_null_count FROM parquet_metadata(${q(out)})
      WHERE path_in_schema = ${q(col)}`);
    const dk = await rows(conn, `SELECT min(${col})::VARCHAR, max(${col})::VARCHAR, count(*) - count(${col}) FROM read_parquet(${q(out)})`);
    const [smin, smax, snull] = md[0];
    const [dmin, dmax, dnull] = dk[0];
    if (Number(snull) !== Number(dnull)) return `${col}: null_count ${snull}, DuckDB counts ${dnull}`;
    if (dmin === null) {
      if (smin !== null || smax !== null) return `${col}: min/max ${smin}/${smax} for an all-null column`;
      continue;
    }
    if (t.stats || (Buffer.byteLength(dmin) <= 64 && Buffer.byteLength(dmax) <= 64)) {
      if (smin !== dmin || smax !== dmax) return `${col}: min/max ${smin}/${smax}, DuckDB says ${dmin}/${dmax}`;
    } else {
      // truncated: the min a prefix of the true min, the max above the true max
      if (smin === null || !dmin.startsWith(smin) || smin.length > 64) return `${col}: truncated min ${smin} for ${dmin}`;
      if (smax !== null && !(Buffer.compare(Buffer.from(smax), Buffer.from(dmax)) > 0 && smax.length <= 65))
        return `${col}: truncated max ${smax} does not bound ${dmax}`;
    }
  }
  return null;
}

async function runCase(conn, dir, c) {
  const src = path.join(dir, `${c.name}.src.parquet`);
  const cols = c.types.map((t) => `${colExpr(t, c.nulls)} AS c_${t.name}`).join(',\n  ');
  const results = [];
  try {
    await conn.run(`COPY (SELECT i AS id,\n  ${cols}\nFROM range(${c.rows}) r(i) ORDER BY i)\nTO ${q(src)} (FORMAT parquet)`);
  } catch (e) {
    return [{ label: c.name, fail: `DuckDB could not write the source: ${e.message.split('\n')[0]}` }];
  }
  for (const o of c.opts) {
    const label = `${c.name} [${o.name}]`;
    const out = path.join(dir, `${c.name}.${o.name}.parquet`);
    const res = await runDeltac(['parquet', 'copy', ...o.args, src, out]);
    let fail = null;
    if (res.err) {
      fail = `deltac failed: ${(res.stderr || String(res.err.message)).trim().split('\n')[0]}`;
    } else {
      try {
        fail = await compareFiles(conn, src, out);
        if (!fail) fail = await checkStats(conn, c, out);
      } catch (e) {
        fail = `DuckDB could not read deltac's file: ${e.message.split('\n')[0]}`;
      }
    }
    results.push({ label, fail });
    if (!fail && !opt.keep) fs.rmSync(out, { force: true });
  }
  if (!opt.keep && results.every((r) => !r.fail)) fs.rmSync(src, { force: true });
  return results;
}

const started = Date.now();
const dir = opt.keep ? path.resolve(opt.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'deltac-pq-write-'));
fs.mkdirSync(dir, { recursive: true });
const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
let passed = 0, failed = 0, next = 0;
async function worker() {
  const conn = await instance.connect();
  while (next < selected.length) {
    const c = selected[next++];
    for (const r of await runCase(conn, dir, c)) {
      if (r.fail) { failed++; console.log(`FAIL ${r.label}: ${r.fail}`); }
      else { passed++; console.log(`PASS ${r.label}`); }
    }
  }
}
await Promise.all(Array.from({ length: opt.jobs }, worker));
if (failed && !opt.keep) console.log(`failing files kept in ${dir}`);
else if (!opt.keep) fs.rmSync(dir, { recursive: true, force: true });
console.log(`parquet_write_duckdb: ${selected.length} sources in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
