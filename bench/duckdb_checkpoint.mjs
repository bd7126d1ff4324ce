#!/usr/bin/env node
// The log benchmark's peer: DuckDB reading the `add` column of a Delta
// checkpoint on one thread. Prints one JSON line: {"seconds": best, "adds": N,
// "rss_kb": peak, "baseline_rss_kb": before the first read}.
//
//   node bench/duckdb_checkpoint.mjs FILE [--runs 3]
//
// How DuckDB is made to really decode the add actions: a bare
// `SELECT count(*), sum(add.size) ... WHERE add IS NOT NULL` could in
// principle read only add.size and the struct's validity (DuckDB pushes struct
// field projections into the Parquet scan in some versions). So every field
// deltac's replay uses goes into an aggregate that needs its values:
//   sum(strlen(add.path)), sum(strlen(add.stats))      -- the strings' bytes
//   sum(strlen(add.partitionValues['date']))           -- map keys + values
//   sum(cardinality(add.tags)), count(add.dataChange),
//   sum(add.size), sum(add.modificationTime)
// (strlen counts bytes, so no UTF-8 decoding is added on top.) EXPLAIN
// ANALYZE shows a TABLE_SCAN projecting `add` with the filter
// (add IS NOT NULL) pushed into it and the extracts in a PROJECTION above, so
// every add row's fields are materialised. Only the add column is read: the
// remove/metaData/protocol/txn columns that deltac also reads are not, a
// slight advantage for DuckDB. Timing is in-process after DuckDB is loaded,
// threads=1, best of --runs.
import { DuckDBInstance } from '@duckdb/node-api';

const argv = process.argv.slice(2);
let file = null, runs = 3;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = parseInt(argv[++i], 10);
  else file = argv[i];
}
if (!file) { console.error('usage: duckdb_checkpoint.mjs FILE [--runs N]'); process.exit(2); }

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await db.connect();
const lit = `'${file.replace(/'/g, "''")}'`;
const q = `SELECT count(*), sum(add.size), sum(add.modificationTime), sum(strlen(add.path)), sum(strlen(add.stats)),
    sum(strlen(add.partitionValues['date'])), sum(cardinality(add.tags)), count(add.dataChange)
  FROM read_parquet(${lit}) WHERE add IS NOT NULL`;

const baseline = process.resourceUsage().maxRSS;
let best = Infinity, adds = null;
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  const res = await conn.runAndReadAll(q);
  const dt = (performance.now() - t0) / 1000;
  adds = Number(res.getRows()[0][0]);
  if (dt < best) best = dt;
}
console.log(JSON.stringify({ seconds: best, adds, rss_kb: process.resourceUsage().maxRSS, baseline_rss_kb: baseline }));
