#!/usr/bin/env bash
# Write benchmark: `deltac write` of the 10 M-row scan data (SNAPPY Parquet
# in, a new Delta table with SNAPPY data files out: decode, stats, encode,
# compress, files fsync'd, commit) against DuckDB `COPY ... TO parquet`
# (SNAPPY) from the same file in the same run; one thread each, best of
# BENCH_RUNS. Run by bench/run.sh (`make bench`).
#
#   bash bench/write_run.sh [path/to/deltac] SNAPPY_FILE
#
# deltac is timed as a whole process, the previous run's table removed
# inside the timed command (`rm -rf` of three files); DuckDB in-process,
# overwriting its output file. ratio = duckdb s / deltac s (> 1: deltac faster).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELTAC="${1:-$ROOT/build/deltac}"
SRC="${2:?usage: write_run.sh DELTAC SNAPPY_FILE}"
RUNS="${BENCH_RUNS:-3}"
cd "$ROOT"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=bench/timing.sh
source "$ROOT/bench/timing.sh"
read -r d_s d_rss _ < <(time_cmd sh -c 'rm -rf "$1" && exec "$2" write --codec snappy --input "$3" "$1"' sh \
  "$tmp/table" "$DELTAC" "$SRC")
d_rows=$("$DELTAC" scan --format count "$tmp/table")
d_bytes=$(du -sb "$tmp/table" | cut -f1)
rm -rf "$tmp/table"
j=$(node bench/duckdb_write.mjs "$SRC" "$tmp/duck.parquet" --runs "$RUNS")
k_s=$(node -e 'console.log(JSON.parse(process.argv[1]).seconds.toFixed(3))' "$j")
k_rows=$(node -e 'console.log(JSON.parse(process.argv[1]).rows)' "$j")
k_bytes=$(stat -c %s "$tmp/duck.parquet")
ratio=$(awk -v a="$k_s" -v b="$d_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
printf '\n%-28s %10s %10s %8s %10s %10s %12s %12s\n' "Write (SNAPPY Parquet in)" "deltac s" "duckdb s" ratio \
  "rows" "duck rows" "deltac MB" "duckdb MB"
printf '%-28s %10s %10s %8s %10s %10s %12s %12s\n' "$(basename "$SRC")" "$d_s" "$k_s" "$ratio" "$d_rows" "$k_rows" \
  "$((d_bytes / 1048576))" "$((k_bytes / 1048576))"
echo "deltac peak RSS $((d_rss / 1024)) MB. deltac fsyncs its files and commits; DuckDB only writes its file."
