#!/usr/bin/env node
// The MERGE benchmark's peer: the same upsert with DuckDB over plain
// Parquet, one thread: the table's data files and the source read, the
// merged rows (source rows replace target rows with the same id, the rest
// inserted) written with COPY TO one Parquet file. Prints one JSON line
// {seconds, rows, rss_kb, baseline_rss_kb}.
//
//   node bench/duckdb_merge.mjs TABLE_DIR SRC.parquet OUT.parquet
import fs from 'node:fs';
import path from 'node:path';
import { connectSingleThread, sqlString } from './duck_timing.mjs';

const [dir, src, out] = process.argv.slice(2);
if (!out) { console.error('usage: duckdb_merge.mjs TABLE_DIR SRC.parquet OUT.parquet'); process.exit(2); }
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort().map((f) => sqlString(path.join(dir, f)));
const conn = await connectSingleThread();
const baseline = process.resourceUsage().maxRSS;
const t0 = performance.now();
await conn.run(`COPY (SELECT t.* FROM read_parquet([${files.join(', ')}]) t
                      WHERE t.id NOT IN (SELECT id FROM read_parquet(${sqlString(src)}))
                      UNION ALL SELECT * FROM read_parquet(${sqlString(src)}))
                TO ${sqlString(out)} (FORMAT parquet, COMPRESSION snappy)`);
const seconds = (performance.now() - t0) / 1000;
const rows = Number((await conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(out)})`)).getRows()[0][0]);
console.log(JSON.stringify({ seconds, rows, rss_kb: process.resourceUsage().maxRSS, baseline_rss_kb: baseline }));
