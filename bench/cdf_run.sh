#!/usr/bin/env bash
# Change-feed benchmark: `deltac changes` over a table of 100 commits of
# 100k-row appends, updates (cdc files) and deletes (bench/gen_cdf.mjs,
# generated once into bench/data/), next to a plain `deltac scan` of the same
# table's latest snapshot in the same run. Run by bench/run.sh (so by
# `make bench`); never part of the tests.
#
#   bash bench/cdf_run.sh [path/to/deltac]   (env: BENCH_RUNS, BENCH_CDF_COMMITS,
#                                             BENCH_CDF_ROWS, BENCH_CDF_SHORT)
#
# Both commands write an Arrow IPC stream to /dev/null (decoded, conformed,
# framed; no text formatting), timed as whole processes: best of BENCH_RUNS
# wall seconds and user+sys CPU seconds (the machine is shared: CPU time says
# more), peak RSS from GNU time -v. Row counts are checked against what the
# generator wrote (changes --summary, info).
# Targets (issue 5): feed rows/s >= 80% of scan rows/s; peak RSS of the whole
# range about that of a short one (BENCH_CDF_SHORT commits, default 10).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELTAC="${1:-$ROOT/build/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
RUNS="${BENCH_RUNS:-3}"
SHORT="${BENCH_CDF_SHORT:-10}"
cd "$ROOT"

if [ ! -d node_modules/@duckdb/node-api ]; then
  echo "cdf bench: node_modules/@duckdb/node-api is missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || { echo "cdf bench: GNU time missing ($TIME_BIN); run: bash scripts/bootstrap.sh" >&2; exit 1; }
[ -x "$DELTAC" ] || { echo "cdf bench: $DELTAC not found (make build)" >&2; exit 1; }

meta="$(nice -n 19 node bench/gen_cdf.mjs --commits "${BENCH_CDF_COMMITS:-100}" --rows "${BENCH_CDF_ROWS:-100000}")"
jget() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$1" "$2"; }
TABLE="$(jget "$meta" path)"
COMMITS="$(jget "$meta" commits)"
CHANGE_ROWS="$(jget "$meta" change_rows)"
LIVE_ROWS="$(jget "$meta" live_rows)"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# best-of-N wall seconds, best user+sys CPU seconds and max peak RSS (KB)
time_cmd() {
  local best="" cpu="" rss=0 t0 t1 dt r c i
  for ((i = 0; i < RUNS; i++)); do
    t0=$EPOCHREALTIME
    "$TIME_BIN" -v -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
      echo "cdf bench: '$*' failed: $(head -n1 "$tmp/err")" >&2; return 1; }
    t1=$EPOCHREALTIME
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    r=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time")
    c=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$tmp/time")
    if [ -z "$best" ] || awk -v a="$dt" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$dt; fi
    if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
    [ "$r" -gt "$rss" ] && rss=$r
  done
  echo "$best $cpu $rss"
}

# The counts the generator promised, before anything is timed.
summary_rows() {
  "$DELTAC" changes --summary --format ndjson "$@" "$TABLE" |
    node -e 'let n = 0; for (const l of require("fs").readFileSync(0, "utf8").split("\n")) if (l) {
      const o = JSON.parse(l); n += o.insert + o.delete + o.update_preimage + o.update_postimage; } console.log(n)'
}
got=$(summary_rows --from 0)
[ "$got" = "$CHANGE_ROWS" ] || { echo "cdf bench: deltac changes gave $got rows, expected $CHANGE_ROWS" >&2; exit 1; }
short_rows=$(summary_rows --from 0 --to $((SHORT - 1)))
got=$("$DELTAC" info --format json "$TABLE" | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).num_records)')
[ "$got" = "$LIVE_ROWS" ] || { echo "cdf bench: deltac info gave $got live rows, expected $LIVE_ROWS" >&2; exit 1; }

read -r f_s f_cpu f_rss < <(time_cmd "$DELTAC" changes --from 0 --format arrow "$TABLE")
read -r s_s s_cpu s_rss < <(time_cmd "$DELTAC" scan --format arrow "$TABLE")
read -r h_s h_cpu h_rss < <(time_cmd "$DELTAC" changes --from 0 --to $((SHORT - 1)) --format arrow "$TABLE")

rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.1f", n / s / 1e6; else print "inf" }'; }
printf '\nchange data feed: %s commits, %s change rows (scan: %s live rows)\n' "$COMMITS" "$CHANGE_ROWS" "$LIVE_ROWS"
printf '%-30s %12s %8s %8s %10s %10s %10s\n' run rows "wall s" "cpu s" "M rows/s" "M rows/cpu" "peak RSS"
printf '%-30s %12s %8s %8s %10s %10s %10s\n' ------------------------------ ------------ -------- -------- ---------- ---------- ----------
row() { printf '%-30s %12s %8s %8s %10s %10s %7s MB\n' "$1" "$2" "$3" "$4" "$(rate "$2" "$3")" "$(rate "$2" "$4")" "$(($5 / 1024))"; }
row "changes 0..$((COMMITS - 1))" "$CHANGE_ROWS" "$f_s" "$f_cpu" "$f_rss"
row "scan (latest)" "$LIVE_ROWS" "$s_s" "$s_cpu" "$s_rss"
row "changes 0..$((SHORT - 1))" "$short_rows" "$h_s" "$h_cpu" "$h_rss"
echo
awk -v fr="$CHANGE_ROWS" -v fs="$f_s" -v fc="$f_cpu" -v sr="$LIVE_ROWS" -v ss="$s_s" -v sc="$s_cpu" 'BEGIN {
  printf "feed / scan rows per second: %.2f wall, %.2f cpu (target >= 0.80)\n", (fr / fs) / (sr / ss), (fr / fc) / (sr / sc) }'
awk -v a="$f_rss" -v b="$h_rss" -v n="$COMMITS" -v m="$SHORT" 'BEGIN {
  printf "peak RSS, %d commits / %d commits: %.2f (target: about 1, independent of the range)\n", n, m, a / b }'
echo "Best of $RUNS; Arrow IPC to /dev/null; page cache warm; single-threaded."
