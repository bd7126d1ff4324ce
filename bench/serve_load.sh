#!/usr/bin/env bash
# Load test of deltac serve with wrk: 50 connections for 20 s against the
# change summary and a small change range of the demo table, on a loopback
# port. Reports requests/s, p50/p99 latency, errors (non-2xx responses and
# socket errors; both must be 0) and the server's RSS before, between and
# after the runs (it must stay flat: responses stream, nothing accumulates).
# Run by `make bench` (bench/run.sh); never part of the tests.
#
#   bash bench/serve_load.sh [path/to/deltac]   (env: LOAD_SECONDS=20 LOAD_CONNECTIONS=50)
#
# Exit status 1 when a run had errors.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELTAC="${1:-$ROOT/build/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
SECONDS_PER_RUN="${LOAD_SECONDS:-20}"
CONNS="${LOAD_CONNECTIONS:-50}"
command -v wrk >/dev/null || { echo "serve load: wrk is not installed (bash scripts/bootstrap.sh --bench); skipped" >&2; exit 0; }
[ -x "$DELTAC" ] || { echo "serve load: $DELTAC not found (make build)" >&2; exit 1; }

tmp="$(mktemp -d)"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
B="http://127.0.0.1:$port"

"$DELTAC" demo --dir "$tmp/demo" --create-only >/dev/null
"$DELTAC" serve --host 127.0.0.1 --port "$port" --table "demo=$tmp/demo" --access-log "$tmp/access.log" \
  >/dev/null 2>"$tmp/serve.err" &
pid=$!
for _ in $(seq 100); do grep -q serving "$tmp/serve.err" 2>/dev/null && break; sleep 0.05; done
grep -q serving "$tmp/serve.err" || { echo "serve load: the server did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status"; }
summary="$B/api/tables/demo/changes/summary?from=0"
changes="$B/api/tables/demo/changes?from=5&to=7"
# warm-up: the snapshot cache and every code path once
curl -sf -o /dev/null "$summary" && curl -sf -o /dev/null "$changes"
rss0=$(rss_kb)

failed=0
# run NAME URL: one wrk run; prints a result row
run() {
  local name=$1 url=$2 out="$tmp/wrk.out"
  wrk -t2 -c"$CONNS" -d"${SECONDS_PER_RUN}s" --latency "$url" >"$out" 2>&1
  local reqs rps p50 p99 non2xx sockerr
  reqs=$(awk '/requests in/ { print $1 }' "$out")
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
  p50=$(awk '$1 == "50%" { print $2 }' "$out")
  p99=$(awk '$1 == "99%" { print $2 }' "$out")
  non2xx=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$out")
  sockerr=$(awk '/Socket errors:/ { gsub(",", ""); print $4 + $6 + $8 + $10 }' "$out")
  non2xx=${non2xx:-0} sockerr=${sockerr:-0}
  [ "$non2xx" = 0 ] && [ "$sockerr" = 0 ] && [ -n "$reqs" ] || failed=1
  printf '%-18s %10s %10s %9s %9s %8s %13s %9s\n' "$name" "$reqs" "$rps" "$p50" "$p99" "$non2xx" "$sockerr" "$(($(rss_kb) / 1024)) MB"
}

echo
echo "deltac serve under load: wrk, $CONNS connections, ${SECONDS_PER_RUN} s per run, 2 threads, loopback"
printf '%-18s %10s %10s %9s %9s %8s %13s %9s\n' endpoint requests "req/s" p50 p99 non-2xx "socket errs" "RSS after"
printf '%-18s %10s %10s %9s %9s %8s %13s %9s\n' ------------------ ---------- ---------- --------- --------- -------- ------------- ---------
run changes/summary "$summary"
rss1=$(rss_kb)
run "changes 5..7" "$changes"
rss2=$(rss_kb)
run changes/summary "$summary"
rss3=$(rss_kb)
# every logged request answered 200 (wrk may cut its last requests short: 499)
bad_status=$(awk '$5 != 200 && $5 != 499' "$tmp/access.log" | wc -l)
echo "server RSS: $((rss0 / 1024)) MB before, $((rss1 / 1024)) / $((rss2 / 1024)) / $((rss3 / 1024)) MB after each run;" \
  "access log: $(wc -l <"$tmp/access.log") requests, $bad_status with a status other than 200"
[ "$bad_status" = 0 ] || failed=1
kill -0 "$pid" 2>/dev/null || { echo "serve load: the server died" >&2; failed=1; }
[ "$failed" = 0 ] || { echo "serve load: FAILED (errors above)" >&2; exit 1; }
