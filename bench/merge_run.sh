#!/usr/bin/env bash
# MERGE benchmark: an upsert of 10k source rows (5k updates spread over a
# tenth of the ids, or over all of them ("spread": every file touched), 5k inserts) into a 10 M-row Delta table (bench/gen_merge.mjs,
# written once with `deltac write` into ~10 files; a second copy with
# deletion vectors on), against the same upsert
# done by DuckDB over the table's Parquet files (bench/duckdb_merge.mjs: the
# merged table rewritten with COPY TO, DuckDB's way with plain Parquet).
#
#   bash bench/merge_run.sh [path/to/deltac]     (env: BENCH_MERGE_ROWS)
#
# Each deltac run merges into a fresh copy of the table (the copy is not
# timed); one run each (a merge changes its table). Peak RSS from GNU time,
# to compare with the table's size. ratio = duckdb s / deltac s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELTAC="${1:-$ROOT/build/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
ROWS="${BENCH_MERGE_ROWS:-10000000}"
cd "$ROOT"
DIR=$(node bench/gen_merge.mjs --rows "$ROWS" --changes 10000 --dir "bench/data/merge-$ROWS")
BASE="$DIR/table2"
for b in table2 table_dv2; do
  if [ ! -d "$DIR/$b/_delta_log" ]; then
    rm -rf "${DIR:?}/$b"
    props=()
    [ $b = table_dv2 ] && props=(--property delta.enableDeletionVectors=true)
    # delta.targetFileSize: rewritten files are cut at the same size
    "$DELTAC" write "${props[@]}" --property delta.targetFileSize=16777216 --input "$DIR/base.parquet" \
      --target-file-size 16M "$DIR/$b" >/dev/null
  fi
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
RUNS=1
# shellcheck source=bench/timing.sh
source "$ROOT/bench/timing.sh"

files=$(ls "$BASE" | grep -c '\.parquet$')
size_mb=$(du -sm "$BASE" | cut -f1)
printf '\n%-30s %10s %10s %8s %12s %12s\n' "MERGE 10k rows (upsert)" "deltac s" "duckdb s" ratio "deltac RSS" "duckdb RSS"
for mode in cow dv cow-spread dv-spread; do
  rm -rf "$tmp/t"
  case $mode in dv*) cp -r "$DIR/table_dv2" "$tmp/t" ;; *) cp -r "$BASE" "$tmp/t" ;; esac
  src="$DIR/src.parquet"
  case $mode in *spread) src="$DIR/src_spread.parquet" ;; esac
  read -r d_s d_rss _ < <(time_cmd "$DELTAC" merge "$tmp/t" --source "$src" --on "t.id = s.id" \
    --when-matched-update-all --when-not-matched-insert-all)
  summary=$(cat "$tmp/out")
  n=$("$DELTAC" scan --format count "$tmp/t")
  [ "$n" = "$((ROWS + 5000))" ] || echo "bench: warning: $n rows after the merge, expected $((ROWS + 5000))" >&2
  if [ $mode = cow ] || [ $mode = cow-spread ]; then
    j=$(node bench/duckdb_merge.mjs "$BASE" "$src" "$tmp/duck.parquet")
    rm -f "$tmp/duck.parquet"
    k_s=$(node -e 'console.log(JSON.parse(process.argv[1]).seconds.toFixed(3))' "$j")
    k_rows=$(node -e 'console.log(JSON.parse(process.argv[1]).rows)' "$j")
    k_rss=$(node -e 'console.log(Math.round(JSON.parse(process.argv[1]).rss_kb/1024))' "$j")
    [ "$k_rows" = "$((ROWS + 5000))" ] || echo "bench: warning: DuckDB wrote $k_rows rows" >&2
  fi
  ratio=$(awk -v a="$k_s" -v b="$d_s" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }')
  printf '%-30s %10s %10s %8s %9s MB %9s MB\n' "$mode" "$d_s" "$k_s" "$ratio" "$((d_rss / 1024))" "$k_rss"
  echo "  deltac: $summary"
done
echo "table: $ROWS rows in $files files, $size_mb MB on disk; source: 10000 rows (5000 updates, 5000 inserts)."
echo "DuckDB rewrites the whole table (plain Parquet has no row-level changes); deltac rewrites only the files"
echo "holding updated rows and reads only the files whose id min/max holds a source id. Both single-threaded."
