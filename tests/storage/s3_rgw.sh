#!/usr/bin/env bash
# Tables on S3, against a real Ceph radosgw started on 127.0.0.1 by
# tests/servers/rgw.sh (and always stopped again): shared conformance tables
# uploaded with curl's own SigV4 (partition directories holding '=', spaces
# and '%', and a table with a checkpoint) read through s3:// must give what
# the local copies give for info, schema, files and history; the storage
# contract and a put-if-absent race through the library
# (unit_storage_test_s3 in live mode); a wrong secret gives one line with the
# key, the status and S3's error code and no secret. Missing prerequisites
# (radosgw, ceph-mon, ceph-osd, curl) fail the test.
#
# Not yet through storage (issue 15): checkpoints and data files are opened
# by local path, so `info`/`schema` on a table with a checkpoint and `scan`
# report "is not a local filesystem". Those checks accept exactly that
# one-line error (printed as KNOWN GAP) or, once the gap is closed, output
# equal to the local copy's.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
bindir=$(dirname "$deltac")
cd "$(dirname "$0")/../.."
T=$(realpath "${DELTAC_SHARED:-../shared}/conformance/tables")
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
tmp=$(mktemp -d)
srv=$tmp/rgw
cleanup() { bash tests/servers/rgw.sh stop "$srv" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

for b in radosgw ceph-mon ceph-osd curl python3; do
  command -v "$b" >/dev/null || { echo "FAIL: $b is missing (bash scripts/bootstrap.sh installs it)"; exit 1; }
done
[ -x "$bindir/unit_storage_test_s3" ] || { echo "FAIL: $bindir/unit_storage_test_s3 not built"; exit 1; }

if ! bash tests/servers/rgw.sh start "$srv" >"$tmp/env" 2>"$tmp/start.err"; then
  echo "FAIL: radosgw did not start: $(tail -3 "$tmp/start.err")"; exit 1
fi
# shellcheck disable=SC1091
. "$tmp/env"

# upload DIR PREFIX: every file of DIR to s3://deltac/PREFIX/..., keys
# encoded the AWS way so that '=', spaces and '%' survive.
upload() {
  local src=$1 prefix=$2 f enc code
  while IFS= read -r -d '' f; do
    f=${f#./}
    enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe="/-_.~"))' "$prefix/$f")
    code=$(cd "$src" && curl -s -o /dev/null -w '%{http_code}' -X PUT --aws-sigv4 "aws:amz:$AWS_REGION:s3" \
      --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
      --data-binary "@$f" "$AWS_ENDPOINT_URL/deltac/$enc")
    [ "$code" = 200 ] || { bad "upload $prefix/$f: HTTP $code"; return 1; }
  done < <(cd "$src" && find . -type f -print0)
}

# Commit times come from file modification times when a table has no
# in-commit timestamps, and an upload makes new ones: those (and the
# location line) are the only differences allowed.
normalise() {
  sed -E -e '/^location:/d' \
    -e 's/committed [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/committed TIME/' \
    -e 's/"timestamp":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"/"timestamp":"TIME"/g' "$1"
}

# same CMD LOCAL S3URI [ARGS...]: equal output (after normalise), exit 0.
same() {
  local cmd=$1 local=$2 remote=$3; shift 3
  "$deltac" "$cmd" "$@" "$local" >"$tmp/local.out" 2>"$tmp/local.err"
  local lrc=$?
  "$deltac" "$cmd" "$@" "$remote" >"$tmp/s3.out" 2>"$tmp/s3.err"
  local rrc=$?
  if [ $lrc -ne 0 ]; then bad "$cmd $* local copy failed: $(cat "$tmp/local.err")"; return; fi
  if [ $rrc -ne 0 ]; then bad "$cmd $* $remote exited $rrc: $(cat "$tmp/s3.err")"; return; fi
  if ! diff <(normalise "$tmp/local.out") <(normalise "$tmp/s3.out") >"$tmp/diff"; then
    bad "$cmd $* $remote differs from the local copy: $(head -5 "$tmp/diff")"; return
  fi
  ok
}

# same_or_gap: like same, but the known gap (a file read by local path) is
# accepted when it is one line naming the storage.
same_or_gap() {
  local cmd=$1 local=$2 remote=$3; shift 3
  "$deltac" "$cmd" "$@" "$remote" >"$tmp/s3.out" 2>"$tmp/s3.err"
  local rrc=$?
  if [ $rrc -ne 0 ] && [ "$(wc -l <"$tmp/s3.err")" -eq 1 ] && grep -q "is not a local filesystem" "$tmp/s3.err"; then
    echo "KNOWN GAP: $cmd $remote: $(cat "$tmp/s3.err")"; ok; return
  fi
  same "$cmd" "$local" "$remote" "$@"
}

SPECIAL=delta-golden.hive.deltatbl-special-chars-in-partition-column
ESCAPED=delta-golden.data-reader-escaped-chars
CKPT=delta-golden.checkpoint
upload "$T/$SPECIAL" special && upload "$T/$ESCAPED" "escaped chars" && upload "$T/$CKPT" ckpt || {
  echo "$pass passed, $fail failed"; exit 1; }

for cmd in info schema history files; do
  same "$cmd" "$T/$SPECIAL" s3://deltac/special
  same "$cmd" "$T/$ESCAPED" "s3://deltac/escaped%20chars"
done
same history "$T/$CKPT" s3a://deltac/ckpt/
same info "$T/$CKPT" s3://deltac/ckpt --version 5
same files "$T/$CKPT" s3://deltac/ckpt --version 5
same_or_gap info "$T/$CKPT" s3://deltac/ckpt
same_or_gap schema "$T/$CKPT" s3://deltac/ckpt
same_or_gap scan "$T/$SPECIAL" s3://deltac/special
same_or_gap scan "$T/$ESCAPED" "s3://deltac/escaped%20chars"

# A table that is not there: a one-line error, exit 1.
"$deltac" info s3://deltac/no-such-table >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok; else bad "missing table: $(cat "$tmp/err")"; fi

# A wrong secret through the CLI: one line, the status and S3's code, no secret.
AWS_SECRET_ACCESS_KEY=WrongSecretWrongSecret "$deltac" info s3://deltac/special >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "s3://deltac/special/_delta_log/.*: 403 SignatureDoesNotMatch" "$tmp/err" \
   && ! grep -q WrongSecret "$tmp/err" && ! grep -qF "$AWS_SECRET_ACCESS_KEY" "$tmp/err"; then
  ok
else
  bad "wrong secret: exit $rc: $(cat "$tmp/err")"
fi

# The storage contract, the put-if-absent race and the wrong-secret message
# through the library, against this server.
if DELTAC_S3_TEST_URI=s3://deltac/unit "$bindir/unit_storage_test_s3" >"$tmp/unit.out" 2>&1; then
  ok; grep -E "race|wrong secret" "$tmp/unit.out"
else
  bad "unit_storage_test_s3 (live): $(tail -5 "$tmp/unit.out")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
