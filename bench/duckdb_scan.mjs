#!/usr/bin/env node
// The benchmark's peer: DuckDB scanning every column of a Parquet file on one
// thread. Prints one JSON line: {"seconds": best, "rows": N, "rss_kb": peak,
// "baseline_rss_kb": before the first scan}.
//
//   node bench/duckdb_scan.mjs FILE [--runs 3]
//
// What makes DuckDB really decode every column: DuckDB prunes unused columns
// (projection pushdown) and answers a bare count(*) from the footer's row
// counts, so `SELECT count(*) FROM read_parquet(f)` decodes nothing (~10 ms on
// 10 M rows). We instead filter on a predicate that mentions every column,
//     WHERE NOT (c1 IS NULL AND c2 IS NULL AND ...)
// EXPLAIN ANALYZE shows that this conjunction under NOT is not pushed into the
// Parquet scan (a FILTER operator sits above a TABLE_SCAN that projects all
// columns), so the scan must produce a full DuckDB vector -- values and
// validity -- for every column of every row, and no row group can be skipped
// through statistics. The filter and count on top cost ~0.2 s of the ~2 s
// query on 10 M rows; they are included in the time (a slight handicap for
// DuckDB). Pulling `SELECT *` into JavaScript instead would time the Node
// bindings, not the scan. Timing is in-process, after DuckDB is loaded, with
// threads=1; best of --runs.
import { DuckDBInstance } from '@duckdb/node-api';

const argv = process.argv.slice(2);
let file = null, runs = 3;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = parseInt(argv[++i], 10);
  else file = argv[i];
}
if (!file) { console.error('usage: duckdb_scan.mjs FILE [--runs N]'); process.exit(2); }

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await db.connect();
const lit = `'${file.replace(/'/g, "''")}'`;
const top = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${lit})`)).getRows().map((r) => r[0]);
const q = `SELECT count(*) FROM (SELECT * FROM read_parquet(${lit})) WHERE NOT (${top.map((c) => `"${c.replace(/"/g, '""')}" IS NULL`).join(' AND ')})`;

const baseline = process.resourceUsage().maxRSS;
let best = Infinity, rows = null;
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  const res = await conn.runAndReadAll(q);
  const dt = (performance.now() - t0) / 1000;
  rows = Number(res.getRows()[0][0]);
  if (dt < best) best = dt;
}
console.log(JSON.stringify({ seconds: best, rows, rss_kb: process.resourceUsage().maxRSS, baseline_rss_kb: baseline }));
