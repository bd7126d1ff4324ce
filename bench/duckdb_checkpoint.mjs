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
import { connectSingleThread, parseArgs, sqlString, timeBestOf } from './duck_timing.mjs';

const { file, runs } = parseArgs('duckdb_checkpoint.mjs');
const conn = await connectSingleThread();
const lit = sqlString(file);
const q = `SELECT count(*), sum(add.size), sum(add.modificationTime), sum(strlen(add.path)), sum(strlen(add.stats)),
    sum(strlen(add.partitionValues['date'])), sum(cardinality(add.tags)), count(add.dataChange)
  FROM read_parquet(${lit}) WHERE add IS NOT NULL`;

await timeBestOf(conn, q, runs, 'adds');
