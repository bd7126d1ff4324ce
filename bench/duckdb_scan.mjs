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
import { connectSingleThread, parseArgs, sqlString, timeBestOf } from './duck_timing.mjs';

const { file, runs } = parseArgs('duckdb_scan.mjs');
const conn = await connectSingleThread();
const lit = sqlString(file);
const top = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${lit})`)).getRows().map((r) => r[0]);
const q = `SELECT count(*) FROM (SELECT * FROM read_parquet(${lit})) WHERE NOT (${top.map((c) => `"${c.replace(/"/g, '""')}" IS NULL`).join(' AND ')})`;

await timeBestOf(conn, q, runs, 'rows');
