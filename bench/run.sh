#!/usr/bin/env bash
# Scan benchmark: deltac's Parquet reader vs DuckDB (single-threaded), on the
# same 10 M-row files (SNAPPY, ZSTD, UNCOMPRESSED) generated once by
# bench/gen.mjs into bench/data/. Run by `make bench`; never part of the tests.
#
#   bash bench/run.sh [path/to/deltac]      (env: BENCH_ROWS, BENCH_RUNS)
#
# deltac:  `deltac parquet bench FILE` decodes every column into Arrow batches
#          without printing; timed as a whole process (wall clock), best of
#          BENCH_RUNS, peak RSS from GNU time.
# DuckDB:  bench/duckdb_scan.mjs (see there for the query that forces every
#          column to be decoded); threads=1, timed in-process, best of
#          BENCH_RUNS, peak RSS of the node process (baseline: node + DuckDB
#          loaded, before the first scan, printed below the table).
# ratio = duckdb seconds / deltac seconds: > 1 means deltac is faster.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELTAC="${1:-$ROOT/build/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
RUNS="${BENCH_RUNS:-3}"
ROWS="${BENCH_ROWS:-10000000}"
cd "$ROOT"

if [ ! -d node_modules/@duckdb/node-api ]; then
  echo "bench: node_modules/@duckdb/node-api is missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || { echo "bench: GNU time missing ($TIME_BIN); run: bash scripts/bootstrap.sh" >&2; exit 1; }

mapfile -t FILES < <(node bench/gen.mjs --rows "$ROWS")

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Does this deltac have `parquet bench`? (It decodes to Arrow without printing.)
have_bench=1
if [ ! -x "$DELTAC" ]; then
  echo "bench: note: $DELTAC not found (make build); timing DuckDB only" >&2
  have_bench=0
elif ! "$DELTAC" parquet bench "${FILES[0]}" >"$tmp/probe.out" 2>"$tmp/probe.err"; then
  echo "bench: note: 'deltac parquet bench' failed ($(head -n1 "$tmp/probe.err")); timing DuckDB only" >&2
  have_bench=0
fi

# shellcheck source=bench/timing.sh
source "$ROOT/bench/timing.sh"

printf '\n%-36s %10s %10s %8s %12s %12s\n' file "deltac s" "duckdb s" ratio "deltac RSS" "duckdb RSS"
printf '%-36s %10s %10s %8s %12s %12s\n' "------------------------------------" ---------- ---------- -------- ------------ ------------
baselines=""
for f in "${FILES[@]}"; do
  d_s="n/a" d_rss="n/a" ratio="n/a"
  if [ "$have_bench" = 1 ]; then
    read -r d_s d_rss_kb d_rows < <(time_cmd "$DELTAC" parquet bench "$f")
    d_rss="$((d_rss_kb / 1024)) MB"
  fi
  j="$(node bench/duckdb_scan.mjs "$f" --runs "$RUNS")"
  k_s=$(node -e 'const j=JSON.parse(process.argv[1]); console.log(j.seconds.toFixed(3))' "$j")
  k_rows=$(node -e 'console.log(JSON.parse(process.argv[1]).rows)' "$j")
  k_rss="$(node -e 'console.log(Math.round(JSON.parse(process.argv[1]).rss_kb/1024))' "$j") MB"
  baselines="$(node -e 'console.log(Math.round(JSON.parse(process.argv[1]).baseline_rss_kb/1024))' "$j")"
  if [ "$have_bench" = 1 ]; then
    ratio=$(awk -v a="$k_s" -v b="$d_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
    if [ -n "${d_rows:-}" ] && [ "$d_rows" != "$ROWS" ]; then
      echo "bench: warning: deltac reported $d_rows rows for $(basename "$f"), expected $ROWS" >&2
    fi
  fi
  [ "$k_rows" != "$ROWS" ] && echo "bench: warning: DuckDB counted $k_rows rows in $(basename "$f"), expected $ROWS" >&2
  printf '%-36s %10s %10s %8s %12s %12s\n' "$(basename "$f")" "$d_s" "$k_s" "$ratio" "$d_rss" "$k_rss"
done
echo
echo "ratio = duckdb s / deltac s (> 1: deltac faster). Best of $RUNS; both single-threaded; page cache warm."
echo "DuckDB RSS is the node process's peak, including ~${baselines} MB for node + DuckDB loaded before any scan."
[ "$have_bench" = 1 ] || echo "deltac column: n/a ('deltac parquet bench' not available in this build)."

# Delta table scan, full and with a selective filter (10 files of the SNAPPY data).
bash "$ROOT/bench/table_scan_run.sh" "$DELTAC" "${FILES[0]}"

# Writing: the SNAPPY data into a new Delta table vs DuckDB COPY ... TO parquet.
bash "$ROOT/bench/write_run.sh" "$DELTAC" "${FILES[0]}"

# Log replay (deltac info on a 1M-file checkpoint table and a 20,000-commit table).
bash "$ROOT/bench/log_run.sh" "$DELTAC"

# Change data feed vs plain scan (100 commits of 100k-row appends/updates/deletes).
bash "$ROOT/bench/cdf_run.sh" "$DELTAC"

# deltac serve under load (wrk, 50 connections, 20 s per endpoint).
bash "$ROOT/bench/serve_load.sh" "$DELTAC"
# MERGE: a 10k-row upsert into a 10 M-row table, against DuckDB over the same Parquet files.
bash "$ROOT/bench/merge_run.sh" "$DELTAC"
