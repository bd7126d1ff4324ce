#!/usr/bin/env bash
# Tables on Google Cloud Storage, against the GCS test server
# (tests/servers/gcs_server.py, started on 127.0.0.1 by tests/servers/gcs.sh
# and always stopped again). GCS itself is not reachable from the test
# machines: this verifies deltac against the server written from Google's
# API documentation, not against Google.
#   - the storage contract, streaming (resumable) uploads, retries on injected
#     503/429/dropped connections, a truncated body as an error, the bearer
#     token and service-account (RS256 JWT) flows and wrong credentials,
#     through the library (unit_storage_test_gcs in live mode);
#   - a put-if-absent race between 8 processes: exactly one wins;
#   - the shared conformance tables uploaded to gs://deltac/conformance:
#     info, schema, history and files equal to the local copies, and
#     check.py --table-root gs://deltac/conformance passes with
#     tests/storage/gcs_expected_failures.txt (cases that fail only because
#     data files are still opened by local path);
#   - through the CLI: a missing table and a wrong service-account key give
#     one line naming the object and the status, and no secret.
# Missing prerequisites (python3, openssl) fail the test.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
bindir=$(dirname "$deltac")
cd "$(dirname "$0")/../.."
SHARED=$(realpath "${DELTAC_SHARED:-../shared}")
T=$SHARED/conformance/tables
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
tmp=$(mktemp -d)
srv=$tmp/gcs
cleanup() { bash tests/servers/gcs.sh stop "$srv" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

for b in python3 openssl; do
  command -v "$b" >/dev/null || { echo "FAIL: $b is missing (bash scripts/bootstrap.sh installs it)"; exit 1; }
done
[ -x "$bindir/unit_storage_test_gcs" ] || { echo "FAIL: $bindir/unit_storage_test_gcs not built"; exit 1; }
[ -d "$T" ] || { echo "FAIL: $T is missing"; exit 1; }

if ! bash tests/servers/gcs.sh start "$srv" >"$tmp/env" 2>"$tmp/start.err"; then
  echo "FAIL: the GCS test server did not start: $(tail -3 "$tmp/start.err")"; exit 1
fi
# shellcheck disable=SC1091
. "$tmp/env"

# The library against the server: contract, uploads, faults, auth.
if DELTAC_GCS_TEST_URI=gs://deltac/unit "$bindir/unit_storage_test_gcs" >"$tmp/unit.out" 2>&1; then
  ok; grep -E "race|streaming|faults|truncated|wrong" "$tmp/unit.out"
else
  bad "unit_storage_test_gcs (live): $(tail -8 "$tmp/unit.out")"
fi

# Put-if-absent race between processes: one winner, whose bytes stay.
for i in 1 2 3 4 5 6 7 8; do
  "$bindir/unit_storage_test_gcs" race gs://deltac/race _delta_log/00000000000000000000.json \
    >"$tmp/race.$i.out" 2>"$tmp/race.$i.err" &
  echo $! >"$tmp/race.$i.pid"
done
won=0 lost=0 winner=
for i in 1 2 3 4 5 6 7 8; do
  wait "$(cat "$tmp/race.$i.pid")"
  case $? in
    0) won=$((won+1)); winner=$(cat "$tmp/race.$i.out") ;;
    3) lost=$((lost+1)) ;;
    *) bad "race process $i: $(cat "$tmp/race.$i.err")" ;;
  esac
done
got=$(curl -s -H "Authorization: Bearer $GCS_TEST_BEARER_TOKEN" \
  "$STORAGE_EMULATOR_HOST/storage/v1/b/deltac/o/race%2F_delta_log%2F00000000000000000000.json?alt=media")
if [ $won -eq 1 ] && [ $lost -eq 7 ] && [ "$got" = "$winner" ]; then
  ok; echo "put-if-absent race: 8 processes, 1 won ($winner)"
else
  bad "process race: $won won, $lost lost, object holds '$got', winner wrote '$winner'"
fi

# The shared conformance tables, uploaded as they are.
if ! python3 tests/storage/gcs_upload.py "$STORAGE_EMULATOR_HOST" deltac "$T" conformance >"$tmp/upload.out" 2>&1; then
  bad "upload: $(tail -3 "$tmp/upload.out")"; echo "$pass passed, $fail failed"; exit 1
fi

# Commit times come from file modification times when a table has no
# in-commit timestamps, and an upload makes new ones: those (and the
# location line) are the only differences allowed.
normalise() {
  sed -E -e '/^location:/d' \
    -e 's/committed [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/committed TIME/' \
    -e 's/"timestamp":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"/"timestamp":"TIME"/g' "$1"
}

# same CMD LOCAL URI [ARGS...]: equal output (after normalise), exit 0.
same() {
  local cmd=$1 local=$2 remote=$3; shift 3
  "$deltac" "$cmd" "$@" "$local" >"$tmp/local.out" 2>"$tmp/local.err"
  local lrc=$?
  "$deltac" "$cmd" "$@" "$remote" >"$tmp/gs.out" 2>"$tmp/gs.err"
  local rrc=$?
  if [ $lrc -ne 0 ]; then bad "$cmd $* local copy failed: $(cat "$tmp/local.err")"; return; fi
  if [ $rrc -ne 0 ]; then bad "$cmd $* $remote exited $rrc: $(cat "$tmp/gs.err")"; return; fi
  if ! diff <(normalise "$tmp/local.out") <(normalise "$tmp/gs.out") >"$tmp/diff"; then
    bad "$cmd $* $remote differs from the local copy: $(head -5 "$tmp/diff")"; return
  fi
  ok
}

SPECIAL=delta-golden.hive.deltatbl-special-chars-in-partition-column
ESCAPED=delta-golden.data-reader-escaped-chars
CKPT=delta-golden.checkpoint
for t in "$SPECIAL" "$ESCAPED" delta-rs.simple_table delta-golden.hive.deltatbl-partition-prune; do
  for cmd in info schema history files; do
    same "$cmd" "$T/$t" "gs://deltac/conformance/$t"
  done
done
same history "$T/$CKPT" "gs://deltac/conformance/$CKPT/"
same info "$T/$CKPT" "gs://deltac/conformance/$CKPT" --version 5
same files "$T/$CKPT" "gs://deltac/conformance/$CKPT" --version 5

# The conformance cases, tables read from the server.
python3 "$SHARED/conformance/check.py" --deltac "$deltac" --table-root gs://deltac/conformance \
  --expect-fail tests/storage/gcs_expected_failures.txt -j 2 >"$tmp/check.out" 2>&1
rc=$?
tail -2 "$tmp/check.out"
if [ $rc -eq 0 ]; then ok; else bad "check.py --table-root gs://deltac/conformance: $(grep '^FAIL' "$tmp/check.out" | head -5)"; fi
# An expected failure must still be the known gap, not something new.
# (check.py shortens messages, so a long data-file path may hide the
# "storage 'gs://...' is not a local filesystem" part: a message that starts
# with a data file's path, a Parquet file or a partition directory, is enough.)
if grep '^XFAIL' "$tmp/check.out" | grep -v "storage 'gs://" | grep -Ev "exit code 1: deltac: [a-z]+: [^ ]*(\.parquet|=)" >"$tmp/odd"; then
  bad "expected failures for another reason: $(head -3 "$tmp/odd")"
else
  ok
fi

# A table that is not there: one line, exit 1.
"$deltac" info gs://deltac/no-such-table >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok; else bad "missing table: $(cat "$tmp/err")"; fi

# Wrong credentials through the CLI (the CLI takes them from the
# environment): a key file of another service account, refused by the token
# endpoint (400 invalid_grant): one line, the object, the status, no secret.
# (A wrong bearer token, 401, is checked through the library above.)
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$tmp/other.pem" 2>/dev/null
python3 - "$GOOGLE_APPLICATION_CREDENTIALS" "$tmp/other.pem" "$tmp/other.json" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))
k["private_key"] = open(sys.argv[2]).read()
json.dump(k, open(sys.argv[3], "w"))
PY
GOOGLE_APPLICATION_CREDENTIALS=$tmp/other.json "$deltac" info "gs://deltac/conformance/$SPECIAL" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "gs://deltac/conformance/$SPECIAL/.*400 invalid_grant" "$tmp/err" \
   && ! grep -q "PRIVATE\|eyJ" "$tmp/err"; then
  ok; echo "wrong service account key (CLI): $(cat "$tmp/err")"
else
  bad "wrong key: exit $rc: $(cat "$tmp/err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
