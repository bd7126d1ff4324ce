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
# Every read goes through storage (data files, checkpoints, sidecars, DVs,
# change files): `scan`, `info` and `schema` on checkpointed, DV and
# partitioned tables read from s3:// must equal the local copies, and the
# shared conformance checker runs against all of tables/ uploaded to
# s3://deltac/conformance. A case that cannot pass yet is listed, with the
# reason, in tests/storage/s3_expected_failures.txt (`case-id  reason`).
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

SPECIAL=delta-golden.hive.deltatbl-special-chars-in-partition-column
ESCAPED=delta-golden.data-reader-escaped-chars
CKPT=delta-golden.checkpoint
DV=kernel-rs.table-with-dv-small
DVPART=delta.spark-resources.partitioned-table-with-dv-large
DVCKPT=delta-golden.dv-partitioned-with-checkpoint
V2SC=kernel-rs.v2-checkpoints-parquet-with-sidecars
CKPTDATA=kernel-rs.v2-classic-checkpoint-parquet
upload "$T/$SPECIAL" special && upload "$T/$ESCAPED" "escaped chars" && upload "$T/$CKPT" ckpt || {
  echo "$pass passed, $fail failed"; exit 1; }

for cmd in info schema history files scan; do
  same "$cmd" "$T/$SPECIAL" s3://deltac/special
  same "$cmd" "$T/$ESCAPED" "s3://deltac/escaped%20chars"
done
same history "$T/$CKPT" s3a://deltac/ckpt/
same info "$T/$CKPT" s3://deltac/ckpt --version 5
same files "$T/$CKPT" s3://deltac/ckpt --version 5
for cmd in info schema; do same "$cmd" "$T/$CKPT" s3://deltac/ckpt; done

# All of the shared tables, with curl's parallel uploads (one connection
# pool, 16 at a time), for the checks below and the conformance cases.
python3 - "$T" conformance "$AWS_ENDPOINT_URL" >"$tmp/upload.cfg" <<'PY'
import os, sys, urllib.parse
src, prefix, ep = sys.argv[1:4]
for root, dirs, files in os.walk(src):
    for f in files:
        p = os.path.join(root, f)
        key = urllib.parse.quote(prefix + "/" + os.path.relpath(p, src), safe="/-_.~")
        q = p.replace("\\", "\\\\").replace('"', '\\"')
        print('upload-file = "%s"\nurl = "%s/deltac/%s"\noutput = "/dev/null"' % (q, ep, key))
PY
curl -s --parallel --parallel-max 16 --aws-sigv4 "aws:amz:$AWS_REGION:s3" \
  --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
  -w '%{http_code}\n' -K "$tmp/upload.cfg" 2>/dev/null | sort | uniq -c >"$tmp/upload.codes"
if [ "$(awk '$2 != 200' "$tmp/upload.codes" | wc -l)" -ne 0 ] || \
   [ "$(awk '{n += $1} END {print n}' "$tmp/upload.codes")" -ne "$(find "$T" -type f | wc -l)" ]; then
  bad "uploading tables/: $(cat "$tmp/upload.codes")"
fi

# deletion vectors (inline, in files, partitioned) and a V2 checkpoint with sidecars
for t in $DV $DVPART $DVCKPT $V2SC $CKPTDATA; do
  for cmd in info schema scan; do same "$cmd" "$T/$t" "s3://deltac/conformance/$t"; done
done

# The conformance cases, every table read through s3://.
xfail=tests/storage/s3_expected_failures.txt
grep -v '^#' "$xfail" | awk 'NF {print $1}' >"$tmp/xfail"
if python3 "${DELTAC_SHARED:-../shared}/conformance/check.py" --deltac "$deltac" -j 4 \
     --table-root s3://deltac/conformance --expect-fail "$tmp/xfail" >"$tmp/conf.out" 2>&1; then
  ok; tail -1 "$tmp/conf.out"
else
  bad "conformance against s3://deltac/conformance: $(grep -E '^(FAIL|XPASS|ERROR)' "$tmp/conf.out" | head -10; tail -1 "$tmp/conf.out")"
fi

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
