// Shared by the DuckDB peers of the benchmarks: argument parsing, a
// single-threaded connection, and best-of-N timing of one query.
import { DuckDBInstance } from '@duckdb/node-api';

// Returns { file, runs } from `FILE [--runs N]`, or exits with usage.
export function parseArgs(script) {
  const argv = process.argv.slice(2);
  let file = null, runs = 3;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') runs = parseInt(argv[++i], 10);
    else file = argv[i];
  }
  if (!file) { console.error(`usage: ${script} FILE [--runs N]`); process.exit(2); }
  return { file, runs };
}

export async function connectSingleThread() {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  return db.connect();
}

export function sqlString(s) { return `'${s.replace(/'/g, "''")}'`; }

// Runs `q` `runs` times; prints {seconds (best), <countKey>: first cell,
// rss_kb, baseline_rss_kb (before the first run)} as one JSON line.
export async function timeBestOf(conn, q, runs, countKey) {
  const baseline = process.resourceUsage().maxRSS;
  let best = Infinity, count = null;
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    const res = await conn.runAndReadAll(q);
    const dt = (performance.now() - t0) / 1000;
    count = Number(res.getRows()[0][0]);
    if (dt < best) best = dt;
  }
  console.log(JSON.stringify({ seconds: best, [countKey]: count, rss_kb: process.resourceUsage().maxRSS,
                               baseline_rss_kb: baseline }));
}
