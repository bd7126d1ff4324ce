#!/usr/bin/env bash
# S3 credentials from a web identity: with only AWS_WEB_IDENTITY_TOKEN_FILE,
# AWS_ROLE_ARN and AWS_ENDPOINT_URL_STS set (no keys anywhere), deltac asks
# the STS stand-in (tests/servers/sts_stub.py) for credentials -- the stub
# checks the token and the role and hands out the radosgw test user's keys --
# and reads a table on a real radosgw (tests/servers/rgw.sh). One exchange
# serves a whole command (the credentials are cached). A wrong token is one
# line with STS's error code, without the token. Both servers run on
# 127.0.0.1 and are stopped by PID. Missing prerequisites fail the test.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
tmp=$(mktemp -d)
srv=$tmp/rgw
stub_pid=
cleanup() {
  [ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null
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

printf '{"id":1}\n' >"$tmp/a.ndjson"
"$deltac" write --input "$tmp/a.ndjson" s3://deltac/wi >/dev/null 2>"$tmp/err" || bad "setup write: $(cat "$tmp/err")"
"$deltac" info s3://deltac/wi >"$tmp/expected" 2>&1 || bad "info with keys: $(cat "$tmp/expected")"

TOKEN=eyJhbGciOiJSUzI1NiJ9.test-web-identity-token.c2lnbmF0dXJl
ROLE=arn:aws:iam::123456789012:role/deltac-test
printf '%s\n' "$TOKEN" >"$tmp/token"
python3 tests/servers/sts_stub.py --port-file "$tmp/sts.port" --token-file "$tmp/token" --role-arn "$ROLE" \
  --access-key "$AWS_ACCESS_KEY_ID" --secret-key "$AWS_SECRET_ACCESS_KEY" 2>"$tmp/sts.err" &
stub_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/sts.port" ] && break; sleep 0.1; done
[ -s "$tmp/sts.port" ] || { echo "FAIL: STS stub did not start: $(cat "$tmp/sts.err")"; exit 1; }
STS=http://127.0.0.1:$(cat "$tmp/sts.port")

# Only the web identity: no keys in the environment, no profile files.
wi() {
  env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE HOME="$tmp/nohome" \
    AWS_WEB_IDENTITY_TOKEN_FILE="$1" AWS_ROLE_ARN="$ROLE" AWS_ROLE_SESSION_NAME=deltac-test \
    AWS_ENDPOINT_URL_STS="$STS" "$deltac" "${@:2}"
}
if wi "$tmp/token" info s3://deltac/wi >"$tmp/out" 2>"$tmp/err" && diff -q "$tmp/expected" "$tmp/out" >/dev/null; then ok
else bad "info with web identity: $(cat "$tmp/err")"; fi
if [ "$(curl -s "$STS/count")" = "$(printf 'ok 1\nfailed 0')" ]; then ok
else bad "expected exactly one STS exchange: $(curl -s "$STS/count")"; fi

# Without the web identity (and without keys) radosgw refuses.
env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$tmp/nohome" "$deltac" info s3://deltac/wi >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "403" "$tmp/err" && ok || bad "anonymous read should be refused: $(cat "$tmp/err")"

# A wrong token: one line, STS's code, no token.
printf 'not-the-token-SECRETWORD\n' >"$tmp/wrong"
wi "$tmp/wrong" info s3://deltac/wi >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "400 InvalidIdentityToken" "$tmp/err" \
   && ! grep -q SECRETWORD "$tmp/err" && ! grep -q "$TOKEN" "$tmp/err"; then ok
else bad "wrong token: exit $rc: $(cat "$tmp/err")"; fi

# A missing token file: one line naming the file.
wi "$tmp/missing-token" info s3://deltac/wi >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "missing-token" "$tmp/err"; then ok
else bad "missing token file: exit $rc: $(cat "$tmp/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
