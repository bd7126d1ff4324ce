#!/usr/bin/env bash
# Log-replay benchmark: `deltac info --format json TABLE` (lists _delta_log,
# replays it, counts live files and sums their stats) on two synthetic tables
# generated once by bench/gen_log_tables.mjs into bench/data/:
#   checkpoint  1,000,000 live files in a classic Parquet checkpoint + 1,000
#               JSON commits after it (+ _last_checkpoint; no older commits)
#   json        20,000 JSON commits, no checkpoint
# Run by bench/run.sh (so by `make bench`); never part of the tests.
#
#   bash bench/log_run.sh [path/to/deltac]   (env: BENCH_RUNS, BENCH_LOG_FILES,
#                                             BENCH_LOG_TAIL, BENCH_LOG_COMMITS)
#
# deltac: whole process, wall clock, best of BENCH_RUNS, peak RSS from GNU time;
#         num_files and num_records must equal what the generator wrote.
# DuckDB: bench/duckdb_checkpoint.mjs reads the checkpoint's add column on one
#         thread (see there for how every add field is forced to be decoded);
#         in-process, best of BENCH_RUNS.
# ratio = deltac s / duckdb s (< 1: deltac faster). Targets (issue): checkpoint
# case ratio <= 1.5 and RSS < 1 GB; json case < 2 s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELTAC="${1:-$ROOT/build/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
RUNS="${BENCH_RUNS:-3}"
cd "$ROOT"

if [ ! -d node_modules/@duckdb/node-api ]; then
  echo "log bench: node_modules/@duckdb/node-api is missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || { echo "log bench: GNU time missing ($TIME_BIN); run: bash scripts/bootstrap.sh" >&2; exit 1; }
[ -x "$DELTAC" ] || { echo "log bench: $DELTAC not found (make build)" >&2; exit 1; }

# Generation is CPU-heavy once (DuckDB writes the checkpoint); keep it polite.
mapfile -t TABLES < <(nice -n 19 node bench/gen_log_tables.mjs --files "${BENCH_LOG_FILES:-1000000}" \
  --tail "${BENCH_LOG_TAIL:-1000}" --commits "${BENCH_LOG_COMMITS:-20000}")

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
jget() { node -e 'const v = JSON.parse(process.argv[1])[process.argv[2]]; console.log(v === null ? "" : v)' "$1" "$2"; }

# best-of-N wall seconds, max peak RSS (KB) and best user+sys CPU seconds of a
# command (CPU time says more than wall time on a busy machine); its last
# stdout in $tmp/out
time_cmd() {
  local best="" cpu="" rss=0 t0 t1 dt r c i
  for ((i = 0; i < RUNS; i++)); do
    t0=$EPOCHREALTIME
    "$TIME_BIN" -f '%M %U %S' -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" || {
      echo "log bench: '$*' failed: $(grep -v 'Command exited' "$tmp/err" | head -n1)" >&2; return 1; }
    t1=$EPOCHREALTIME
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    read -r r c < <(tail -n1 "$tmp/rss" | awk '{ printf "%d %.2f\n", $1, $2 + $3 }')
    if [ -z "$best" ] || awk -v a="$dt" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$dt; fi
    if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
    [ "$r" -gt "$rss" ] && rss=$r
  done
  echo "$best $rss $cpu"
}

echo
echo "Log replay: deltac info --format json TABLE (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-34s %9s %9s %9s %7s %11s %11s  %s\n' case "deltac s" "cpu s" "duckdb s" ratio "deltac RSS" "duckdb RSS" target
printf '%-34s %9s %9s %9s %7s %11s %11s  %s\n' "----------------------------------" --------- --------- --------- ------- ----------- ----------- ------
fail=0
for info in "${TABLES[@]}"; do
  name=$(jget "$info" name) dir=$(jget "$info" path) cp=$(jget "$info" checkpoint)
  want_files=$(jget "$info" num_files) want_records=$(jget "$info" num_records)
  read -r d_s d_rss_kb d_cpu < <(time_cmd "$DELTAC" info --format json "$dir")
  got=$(cat "$tmp/out")
  got_files=$(jget "$got" num_files) got_records=$(jget "$got" num_records)
  if [ "$got_files" != "$want_files" ] || [ "$got_records" != "$want_records" ]; then
    echo "log bench: $name: deltac reported num_files=$got_files num_records=$got_records," \
      "the generator wrote $want_files / $want_records" >&2
    fail=1
  fi
  d_rss_mb=$((d_rss_kb / 1024))
  k_s="-" ratio="-" k_rss="-"
  if [ -n "$cp" ]; then
    j="$(node bench/duckdb_checkpoint.mjs "$cp" --runs "$RUNS")"
    k_s=$(node -e 'console.log(JSON.parse(process.argv[1]).seconds.toFixed(3))' "$j")
    k_rss="$(node -e 'console.log(Math.round(JSON.parse(process.argv[1]).rss_kb/1024))' "$j") MB"
    k_adds=$(jget "$j" adds)
    n_cp=$(node -e 'console.log(JSON.parse(process.argv[1]).path.match(/log_cp_(\d+)/)[1])' "$info")
    [ "$k_adds" = "$n_cp" ] || echo "log bench: warning: DuckDB counted $k_adds adds in the checkpoint, expected $n_cp" >&2
    ratio=$(awk -v a="$d_s" -v b="$k_s" 'BEGIN { printf "%.2f", a / b }')
    target=$(awk -v r="$ratio" -v m="$d_rss_mb" 'BEGIN { print (r <= 1.5 && m < 1024) ? "met (<=1.5x, <1 GB)" : "MISSED (<=1.5x, <1 GB)" }')
    label="$name (+${BENCH_LOG_TAIL:-1000} commits)"
  else
    target=$(awk -v s="$d_s" 'BEGIN { print (s < 2) ? "met (<2 s)" : "MISSED (<2 s)" }')
    label="$name (commits only)"
  fi
  printf '%-34s %9s %9s %9s %7s %11s %11s  %s\n' "$label" "$d_s" "$d_cpu" "$k_s" "$ratio" "$d_rss_mb MB" "$k_rss" "$target"
done
echo
echo "ratio = deltac s / duckdb s (< 1: deltac faster). Best of $RUNS, wall clock, page cache warm;"
echo "cpu s = deltac's best user+sys time (less sensitive than wall time to other load on the machine)."
echo "deltac: whole process (open, list, replay, sum stats); DuckDB: only the checkpoint's add column, in-process,"
echo "threads=1; its RSS is the node process's peak, node + DuckDB included. num_files/num_records checked."
exit "$fail"
