#!/usr/bin/env node
// The write benchmark's peer: DuckDB `COPY (SELECT * FROM read_parquet(IN))
// TO OUT (FORMAT parquet, COMPRESSION snappy)`, one thread, best of N. The
// output file is overwritten by each run. Prints one JSON line like
// duckdb_scan.mjs ("rows": the count COPY reports).
//
//   node bench/duckdb_write.mjs IN OUT [--runs 3]
import { connectSingleThread, sqlString, timeBestOf } from './duck_timing.mjs';

const argv = process.argv.slice(2);
const files = [];
let runs = 3;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = parseInt(argv[++i], 10);
  else files.push(argv[i]);
}
if (files.length !== 2) { console.error('usage: duckdb_write.mjs IN OUT [--runs N]'); process.exit(2); }
const conn = await connectSingleThread();
const q = `COPY (SELECT * FROM read_parquet(${sqlString(files[0])})) TO ${sqlString(files[1])} ` +
  '(FORMAT parquet, COMPRESSION snappy)';
await timeBestOf(conn, q, runs, 'rows');
