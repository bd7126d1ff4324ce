#!/usr/bin/env node
// The table-scan benchmark's peer: DuckDB read_parquet over every data file
// of a directory, one thread, every column decoded (the same forcing
// predicate as duckdb_scan.mjs), optionally with a WHERE filter that DuckDB
// pushes into its scan (row-group pruning by statistics). Prints one JSON
// line like duckdb_scan.mjs.
//
//   node bench/duckdb_table_scan.mjs DIR [--where SQL] [--runs 3]
import fs from 'node:fs';
import path from 'node:path';
import { connectSingleThread, sqlString, timeBestOf } from './duck_timing.mjs';

const argv = process.argv.slice(2);
let dir = null, where = null, runs = 3;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--where') where = argv[++i];
  else if (argv[i] === '--runs') runs = parseInt(argv[++i], 10);
  else dir = argv[i];
}
if (!dir) { console.error('usage: duckdb_table_scan.mjs DIR [--where SQL] [--runs N]'); process.exit(2); }
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort().map((f) => sqlString(path.join(dir, f)));
const conn = await connectSingleThread();
await conn.run("SET TimeZone = 'UTC'");
const src = `read_parquet([${files.join(', ')}])`;
const top = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRows().map((r) => r[0]);
const inner = `SELECT * FROM ${src}${where ? ` WHERE ${where}` : ''}`;
const q = `SELECT count(*) FROM (${inner}) WHERE NOT (${top.map((c) => `"${c.replace(/"/g, '""')}" IS NULL`).join(' AND ')})`;
await timeBestOf(conn, q, runs, 'rows');
