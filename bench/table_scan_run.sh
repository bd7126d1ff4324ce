#!/usr/bin/env bash
# Table-scan benchmark: `deltac scan` of a 10 M-row Delta table (the scan
# benchmark's SNAPPY data cut into 10 files, bench/gen_delta_scan.mjs) in
# full and with a selective filter, against DuckDB read_parquet over the
# same files in the same run (one thread each, best of BENCH_RUNS).
#
#   bash bench/table_scan_run.sh [path/to/deltac] SNAPPY_FILE
#
# deltac: `deltac scan --format count` (every column decoded into Arrow,
# deleted rows and filter applied, only the count printed); --stats shows the
# files and row groups the filter read. DuckDB: bench/duckdb_table_scan.mjs.
# ratio = duckdb s / deltac s (> 1: deltac faster).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELTAC="${1:-$ROOT/build/deltac}"
SRC="${2:?usage: table_scan_run.sh DELTAC SNAPPY_FILE}"
RUNS="${BENCH_RUNS:-3}"
cd "$ROOT"
TABLE=$(node bench/gen_delta_scan.mjs "$SRC")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The selective filter: one hour of c_ts, which rises with the row number,
# so one of the ten files (and one row group) holds it.
FILTER="c_ts >= TIMESTAMP '2020-01-20 00:00:00' AND c_ts < TIMESTAMP '2020-01-20 01:00:00'"
DUCK_WHERE="c_ts >= TIMESTAMPTZ '2020-01-20 00:00:00+00' AND c_ts < TIMESTAMPTZ '2020-01-20 01:00:00+00'"

# shellcheck source=bench/timing.sh
source "$ROOT/bench/timing.sh"
time_deltac() { time_cmd "$DELTAC" "$@"; }

printf '\n%-28s %10s %10s %8s %10s %10s %12s\n' "Delta table scan (10 files)" "deltac s" "duckdb s" ratio "rows" "duck rows" "deltac RSS"
for mode in full filtered; do
  if [ $mode = full ]; then
    read -r d_s d_rss d_rows < <(time_deltac scan --format count "$TABLE")
    j=$(node bench/duckdb_table_scan.mjs "$TABLE" --runs "$RUNS")
  else
    read -r d_s d_rss d_rows < <(time_deltac scan --format count --filter "$FILTER" "$TABLE")
    "$DELTAC" scan --format count --stats --filter "$FILTER" "$TABLE" >/dev/null 2>"$tmp/stats"
    j=$(node bench/duckdb_table_scan.mjs "$TABLE" --where "$DUCK_WHERE" --runs "$RUNS")
  fi
  k_s=$(node -e 'console.log(JSON.parse(process.argv[1]).seconds.toFixed(3))' "$j")
  k_rows=$(node -e 'console.log(JSON.parse(process.argv[1]).rows)' "$j")
  ratio=$(awk -v a="$k_s" -v b="$d_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
  printf '%-28s %10s %10s %8s %10s %10s %9s MB\n' "$mode" "$d_s" "$k_s" "$ratio" "$d_rows" "$k_rows" "$((d_rss / 1024))"
done
echo "filtered scan, deltac --stats: $(cat "$tmp/stats")"
echo "(DuckDB counts rows with at least one non-null column; deltac counts every row: the counts may differ by the all-null rows.)"
