#!/usr/bin/env bash
# Faults between deltac and S3: a real Ceph radosgw (tests/servers/rgw.sh)
# behind tests/servers/fault_proxy.py, both on 127.0.0.1 and stopped by PID
# when the test ends. Checks:
#   - 503, 429 (its Retry-After waited for) and connections dropped before
#     or after the upstream answered are retried, and `info --stats` counts
#     the retries;
#   - a truncated body (Content-Length says more) fails with one line,
#     never short data;
#   - max_retries and retry_timeout bound the attempts;
#   - a commit whose response is lost after radosgw stored it is settled as
#     won (read back, same bytes): the version appears exactly once; when
#     another writer took the version meanwhile, the read-back differs, the
#     commit is lost and retried at the next version (no lost or duplicated
#     version);
#   - aws_conditional_put=none refuses to commit without
#     aws_s3_allow_unsafe_rename=true, and commits with it (warning once);
#   - proxy_url sends the requests through the proxy;
#   - info --stats on radosgw: one listing for a table without a checkpoint,
#     and the counts match the requests the proxy saw. With
#     DELTAC_S3_CHECKPOINT_STATS (default 1) also: opening a table whose checkpoint is
#     its latest version takes at most 3 list/get requests for the log
#     besides the checkpoint itself (needs checkpoints read through storage).
# Missing prerequisites (radosgw, ceph-mon, ceph-osd, curl, python3) fail.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
tmp=$(mktemp -d)
srv=$tmp/rgw
proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  bash tests/servers/rgw.sh stop "$srv" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

for b in radosgw ceph-mon ceph-osd curl python3; do
  command -v "$b" >/dev/null || { echo "FAIL: $b is missing (bash scripts/bootstrap.sh installs it)"; exit 1; }
done
if ! bash tests/servers/rgw.sh start "$srv" >"$tmp/env" 2>"$tmp/start.err"; then
  echo "FAIL: radosgw did not start: $(tail -3 "$tmp/start.err")"; exit 1
fi
# shellcheck disable=SC1091
. "$tmp/env"
RGW=$AWS_ENDPOINT_URL

python3 tests/servers/fault_proxy.py --upstream "$RGW" --port-file "$tmp/proxy.port" \
  --pid-file "$tmp/proxy.pid" 2>"$tmp/proxy.err" &
proxy_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/proxy.port" ] && break; sleep 0.1; done
[ -s "$tmp/proxy.port" ] || { echo "FAIL: fault proxy did not start: $(cat "$tmp/proxy.err")"; exit 1; }
PROXY=http://127.0.0.1:$(cat "$tmp/proxy.port")
export AWS_ENDPOINT_URL=$PROXY

fault() { curl -s -o /dev/null -X POST "$PROXY/__fault__" -d "$1"; }
reset() { curl -s -o /dev/null -X DELETE "$PROXY/__fault__"; }
# requests [METHOD] [PATH-REGEX]: how many requests the proxy saw (since reset).
requests() {
  curl -s "$PROXY/__fault__" | python3 -c '
import json, re, sys
m, p = (sys.argv[1:] + ["", ""])[:2]
print(sum(1 for r in json.load(sys.stdin)["requests"] if (not m or r[0] == m) and (not p or re.search(p, r[1]))))' "$@"
}
# dx [KEY=VALUE ...] -- ARGS: deltac ARGS with storage options, as --option
# when the CLI has it, else as their AWS_* environment variables.
has_option=1
"$deltac" info --option x=y "$tmp/none" >"$tmp/probe" 2>&1
grep -q "unknown option '--option'" "$tmp/probe" && has_option=0
dx() {
  local opts=() envs=() kv k
  while [ "$1" != -- ]; do
    kv=$1; k=${kv%%=*}; shift
    opts+=(--option "$kv")
    k=${k#aws_}; envs+=("AWS_${k^^}=${kv#*=}")
  done
  shift
  if [ $has_option = 1 ]; then "$deltac" "$1" "${opts[@]}" "${@:2}"; else env "${envs[@]}" "$deltac" "$@"; fi
}
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }
# stat KIND FILE: the request count of KIND in a "storage: ..." line.
stat() { sed -nE "s/.*[:,] $1 ([0-9]+)( req)?.*/\1/p" "$2"; }
retries() { sed -nE 's/.*retries ([0-9]+)$/\1/p' "$1"; }
versions() { "$deltac" history --format ndjson "$1" | python3 -c '
import json, sys
print(" ".join(str(json.loads(l)["version"]) for l in sys.stdin if l.strip()))'; }

printf '{"id":1}\n' >"$tmp/a.ndjson"
printf '{"id":2}\n' >"$tmp/b.ndjson"
"$deltac" write --input "$tmp/a.ndjson" s3://deltac/t >/dev/null 2>"$tmp/err" || { bad "setup write: $(cat "$tmp/err")"; }
"$deltac" write --input "$tmp/a.ndjson" s3://deltac/t >/dev/null 2>"$tmp/err" || { bad "setup write: $(cat "$tmp/err")"; }

# --- stats: exact counts, matching what the proxy saw ---
reset
if "$deltac" info --stats s3://deltac/t >/dev/null 2>"$tmp/err" && grep -q '^storage: ' "$tmp/err"; then
  l=$(stat list "$tmp/err") g=$(stat get "$tmp/err") h=$(stat head "$tmp/err")
  pl=$(requests GET 'list-type=2') pa=$(requests GET) ph=$(requests HEAD)
  if [ "$l" = 1 ] && [ "$pl" = 1 ] && [ "$g" = $((pa - pl)) ] && [ "$h" = "$ph" ] && [ "$(retries "$tmp/err")" = 0 ]; then ok
  else bad "stats $(cat "$tmp/err") vs proxy: list $pl, get $((pa - pl)), head $ph"; fi
else
  bad "info --stats: $(cat "$tmp/err")"
fi

# --- retried faults ---
# A dropped connection that libcurl had kept alive is re-sent by libcurl
# itself on a fresh one, unseen by deltac's retry loop (and by --stats for
# bodiless requests): for drops only success is required, and the proxy must
# have seen the request more than once.
retried() { # NAME FAULT-JSON EXPECTED-RETRIES|any
  local name=$1 spec=$2 want=$3
  reset; fault "$spec"
  if "$deltac" info --stats s3://deltac/t >/dev/null 2>"$tmp/err" && grep -q '^storage: ' "$tmp/err" \
     && { [ "$want" = any ] || [ "$(retries "$tmp/err")" = "$want" ]; }; then ok
  else bad "$name: $(cat "$tmp/err")"; fi
}
retried "503 twice" '{"action":"503","count":2}' 2
start=$(date +%s%N)
retried "429 with Retry-After" '{"action":"429","retry_after":2}' 1
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -ge 2000 ] && ok || bad "429 with Retry-After: 2 was retried after $ms ms"
retried "dropped before forwarding" '{"action":"drop_before","count":2,"method":"GET"}' any
[ "$(requests GET)" -ge 5 ] && ok || bad "dropped before forwarding: only $(requests GET) GETs reached the proxy"
retried "dropped after forwarding (GET)" '{"action":"drop_after","method":"GET","path":"\\.json$"}' any
retried "500 on a listing" '{"action":"500","path":"list-type=2"}' 1

# --- a truncated body: one line, exit 1 ---
reset; fault '{"action":"truncate","method":"GET","path":"0+1\\.json$"}'
"$deltac" info s3://deltac/t >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$tmp/err" && grep -q "00000000000000000001.json" "$tmp/err" && grep -qi "bytes" "$tmp/err"; then ok
else bad "truncated body: exit $rc: $(cat "$tmp/err")"; fi

# --- bounds ---
# (The listing is what fails: a failed _last_checkpoint read is only a
# missing hint to the log reader.)
reset; fault '{"action":"503","count":10,"path":"list-type=2"}'
dx max_retries=2 -- info s3://deltac/t >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$tmp/err" && grep -q "503 SlowDown" "$tmp/err" && [ "$(requests GET list-type=2)" = 3 ]; then ok
else bad "max_retries=2: exit $rc, $(requests GET list-type=2) listings: $(cat "$tmp/err")"; fi
reset; fault '{"action":"503","count":10,"path":"list-type=2"}'
start=$(date +%s%N)
dx retry_timeout=300ms -- info s3://deltac/t >/dev/null 2>"$tmp/err"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
n=$(requests GET list-type=2)
if [ $rc -eq 1 ] && one_line "$tmp/err" && [ "$n" -ge 1 ] && [ "$n" -le 4 ] && [ "$ms" -lt 3000 ]; then ok
else bad "retry_timeout=300ms: exit $rc, $n requests, $ms ms: $(cat "$tmp/err")"; fi

# --- ambiguous commits ---
# Won: radosgw stores version 2, the answer is lost; the resend gets 412,
# reads back its own bytes and wins.
reset; fault '{"action":"drop_after","method":"PUT","path":"_delta_log/0+2\\.json$"}'
if "$deltac" write --input "$tmp/b.ndjson" s3://deltac/t >"$tmp/out" 2>"$tmp/err" && grep -q "version 2" "$tmp/out" \
   && [ "$(versions s3://deltac/t)" = "2 1 0" ] && [ "$(requests PUT '0+2\.json$')" -ge 2 ]; then ok
else bad "ambiguous commit (won): $(cat "$tmp/out" "$tmp/err"); versions $(versions s3://deltac/t)"; fi
# The same without retries: the dropped answer is an error, settled by
# reading back.
reset; fault '{"action":"drop_after","method":"PUT","path":"_delta_log/0+3\\.json$"}'
if dx max_retries=0 -- write --input "$tmp/b.ndjson" s3://deltac/t >"$tmp/out" 2>"$tmp/err" \
   && grep -q "version 3" "$tmp/out" && [ "$(versions s3://deltac/t)" = "3 2 1 0" ]; then ok
else bad "ambiguous commit without retries (won): $(cat "$tmp/out" "$tmp/err"); versions $(versions s3://deltac/t)"; fi
# Lost: our PUT of version 4 is held back 2 s; meanwhile another writer
# (straight to radosgw) commits version 4; ours gets 412, the answer is
# dropped, the resend gets 412 again, the read-back differs: lost, and the
# commit goes again as version 5.
reset; fault '{"action":"drop_after","method":"PUT","path":"_delta_log/0+4\\.json$","delay_ms":2000}'
"$deltac" write --input "$tmp/b.ndjson" s3://deltac/t >"$tmp/out" 2>"$tmp/err" &
wpid=$!
sleep 0.8
AWS_ENDPOINT_URL=$RGW "$deltac" write --input "$tmp/a.ndjson" s3://deltac/t >"$tmp/other.out" 2>&1
wait $wpid; rc=$?
if [ $rc -eq 0 ] && grep -q "version 4" "$tmp/other.out" && grep -q "version 5" "$tmp/out" \
   && [ "$(versions s3://deltac/t)" = "5 4 3 2 1 0" ] \
   && [ "$("$deltac" files --format ndjson s3://deltac/t | grep -c .)" = 6 ]; then ok
else bad "ambiguous commit (lost): exit $rc: $(cat "$tmp/out" "$tmp/err" "$tmp/other.out"); versions $(versions s3://deltac/t)"; fi

# --- stores without conditional writes ---
reset
dx aws_conditional_put=none -- write --input "$tmp/a.ndjson" s3://deltac/t >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$tmp/err" && grep -q "aws_s3_allow_unsafe_rename" "$tmp/err" && [ "$(versions s3://deltac/t)" = "5 4 3 2 1 0" ]; then ok
else bad "conditional_put=none without opt-in: exit $rc: $(cat "$tmp/err")"; fi
reset
if dx aws_conditional_put=none aws_s3_allow_unsafe_rename=true -- write --input "$tmp/a.ndjson" \
     s3://deltac/t >"$tmp/out" 2>"$tmp/err" && grep -q "version 6" "$tmp/out" && [ "$(grep -c "warning" "$tmp/err")" = 1 ] \
   && [ "$(requests HEAD '0+6\.json$')" -ge 1 ]; then ok
else bad "unsafe rename opt-in: $(cat "$tmp/out" "$tmp/err")"; fi

# --- proxy_url: the endpoint is radosgw, the requests go through the proxy ---
reset
if AWS_ENDPOINT_URL=$RGW dx "proxy_url=$PROXY" -- info s3://deltac/t >/dev/null 2>"$tmp/err" && [ "$(requests)" -ge 2 ]; then ok
else bad "proxy_url: $(requests) requests through the proxy: $(cat "$tmp/err")"; fi

# --- a checkpointed table: at most 3 list/get requests for the log ---
if [ "${DELTAC_S3_CHECKPOINT_STATS:-1}" = 1 ]; then
  "$deltac" checkpoint s3://deltac/t >/dev/null 2>"$tmp/err" || bad "checkpoint: $(cat "$tmp/err")"
  reset
  if "$deltac" info --stats s3://deltac/t >/dev/null 2>"$tmp/err"; then
    n=$(curl -s "$PROXY/__fault__" | python3 -c '
import json, sys
print(sum(1 for m, p, _ in json.load(sys.stdin)["requests"]
          if m == "GET" and ("_delta_log" in p or "list-type" in p) and ".checkpoint." not in p))')
    if [ "$n" -le 3 ]; then ok; else bad "checkpointed open took $n list/get requests for the log: $(cat "$tmp/err")"; fi
  else
    bad "info on a checkpointed table: $(cat "$tmp/err")"
  fi
else
  echo "NOTE: checkpointed-open request bound not checked (set DELTAC_S3_CHECKPOINT_STATS=1 once checkpoints are read through storage)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
