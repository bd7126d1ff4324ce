#!/usr/bin/env bash
# deltac serve: starts the server on a free loopback port and checks every
# endpoint with curl against the shared conformance tables: the JSON API,
# changes/rows in every format (compared with the CLI; Arrow read back by
# npm apache-arrow), the summary, SSE with Last-Event-ID resume and a commit
# appended while connected, path traversal and encoded-path attacks, bearer
# tokens (401/403), request limits, and a Delta Sharing flow (list, query,
# download a signed file, expired/tampered links refused, changes).
#
# usage: bash tests/cli/serve.sh path/to/deltac   (from anywhere)
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
root=$(pwd)
T=$(realpath "${DELTAC_SHARED:-../shared}/conformance/tables")
# shellcheck source=tests/prereq.sh
source tests/prereq.sh
command -v curl >/dev/null || missing "curl not installed"
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }

# start_server NAME ARGS...: runs deltac serve in the background; sets
# PORT_<NAME>; waits until it listens.
start_server() {
  local name=$1; shift
  local port; port=$(free_port)
  "$deltac" serve --host 127.0.0.1 --port "$port" "$@" >"$tmp/$name.out" 2>"$tmp/$name.log" &
  local pid=$!
  pids+=("$pid")
  eval "PORT_$name=$port PID_$name=$pid"
  for _ in $(seq 100); do
    grep -q "serving" "$tmp/$name.log" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "server $name did not start:"; cat "$tmp/$name.log"; exit 1
}

# get URL [curl args...]: body in $tmp/body, status in $code.
get() { local url=$1; shift; code=$(curl -s -o "$tmp/body" -w '%{http_code}' "$@" "$url"); }
status_is() { # status_is WANT WHAT URL [curl args]
  local want=$1 what=$2 url=$3; shift 3
  get "$url" "$@"
  if [ "$code" = "$want" ]; then ok; else bad "$what: status $code, wanted $want: $(head -c 300 "$tmp/body")"; fi
}
json() { python3 -c "import json,sys; d=json.load(open('$tmp/body')); sys.exit(0 if ($1) else 1)"; }

# ------------------------------------------------------------ dev server
cp -r "$T/delta-rs.cdf-table" "$tmp/cdf"
DV="$T/kernel-rs.table-with-dv-small"
start_server dev --table "cdf=$tmp/cdf" --table "dv=$DV" --access-log "$tmp/access.log"
B="http://127.0.0.1:$PORT_dev"
check "dev mode warns" grep -q "WARNING: no tokens configured" "$tmp/dev.log"

status_is 200 "index" "$B/"
status_is 200 "list tables" "$B/api/tables"
check "list names both tables" json "[t['name'] for t in d['tables']]==['cdf','dv'] and d['tables'][0]['version']==3"
status_is 200 "table info" "$B/api/tables/cdf"
check "info fields" json "d['version']==3 and d['partition_columns']==['birthday'] and d['num_files']>0 and d['schema']['type']=='struct' and d['change_data_feed'] and 'location' not in d"
status_is 200 "dv info" "$B/api/tables/dv"
check "dv info rows (deletion vector subtracted)" json "d['num_rows']==8"
status_is 200 "history" "$B/api/tables/cdf/history"
check "history newest first" json "[c['version'] for c in d['commits']]==[3,2,1,0] and d['commits'][0]['operation']=='DELETE'"
status_is 200 "history limit" "$B/api/tables/cdf/history?limit=1"
check "history limit 1" json "len(d['commits'])==1"

# changes and rows: the same bytes as the CLI, in every text format
for fmt in ndjson csv json; do
  get "$B/api/tables/cdf/changes?from=0&format=$fmt"
  "$deltac" changes --from 0 --format $fmt "$tmp/cdf" >"$tmp/cli.$fmt"
  check "changes $fmt = CLI" cmp -s "$tmp/body" "$tmp/cli.$fmt"
done
get "$B/api/tables/cdf/changes?from=1&to=2&columns=id,name&limit=4"
"$deltac" changes --from 1 --to 2 --columns id,name --limit 4 --format ndjson "$tmp/cdf" >"$tmp/cli.out"
check "changes range/columns/limit = CLI" cmp -s "$tmp/body" "$tmp/cli.out"
check "changes limit 4 rows" test "$(wc -l <"$tmp/body")" -eq 4
ts0=$(python3 -c "import json;print(json.loads(open('$tmp/cli.ndjson').readline())['_commit_timestamp'])")
get "$B/api/tables/cdf/changes?from_timestamp=$ts0&to=0"
check "changes from_timestamp" test "$(wc -l <"$tmp/body")" -eq 10
check "chunked transfer" bash -c "curl -s -D - -o /dev/null '$B/api/tables/cdf/changes?from=0' | grep -qi 'transfer-encoding: chunked'"
check "ndjson content type" bash -c "curl -s -D - -o /dev/null '$B/api/tables/cdf/changes?from=0' | grep -qi 'content-type: application/x-ndjson'"
get "$B/api/tables/dv/rows"
"$deltac" scan --format ndjson "$DV" >"$tmp/cli.out"
check "rows = CLI scan" cmp -s "$tmp/body" "$tmp/cli.out"
get "$B/api/tables/dv/rows?version=0&format=csv"
"$deltac" scan --version 0 --format csv "$DV" >"$tmp/cli.out"
check "rows version=0 = CLI" cmp -s "$tmp/body" "$tmp/cli.out"
get "$B/api/tables/cdf/rows?columns=name&limit=2"
check "rows columns/limit" test "$(cat "$tmp/body")" = "$("$deltac" scan --columns name --limit 2 --format ndjson "$tmp/cdf")"

# filters (the library's filter language), the same rows as the CLI
flt="_change_type = 'update_postimage' AND id > 5"
get "$B/api/tables/cdf/changes?from=0" -G --data-urlencode "filter=$flt"
check "changes filter = CLI" test "$(cat "$tmp/body")" = "$("$deltac" changes --from 0 --filter "$flt" --format ndjson "$tmp/cdf")"
check "changes filter kept rows" test "$(wc -l <"$tmp/body")" -eq 2
get "$B/api/tables/cdf/rows" -G --data-urlencode "filter=birthday = '2023-12-22'"
check "rows filter = CLI" test "$(cat "$tmp/body")" = "$("$deltac" scan --filter "birthday = '2023-12-22'" --format ndjson "$tmp/cdf")"
status_is 400 "filter syntax error" "$B/api/tables/cdf/rows" -G --data-urlencode "filter=id >"
check "filter error names the filter" json "d['error']['message'].startswith('filter')"
status_is 400 "empty filter" "$B/api/tables/cdf/rows?filter="

# summary
status_is 200 "summary" "$B/api/tables/cdf/changes/summary?from=0"
check "summary counts" json "[(v['version'],v['operation'],v['insert'],v['delete'],v['update_preimage'],v['update_postimage']) for v in d['versions']]==[(0,'WRITE',10,0,0,0),(1,'UPDATE',0,0,3,3),(2,'UPDATE',0,0,3,3),(3,'DELETE',0,1,0,0)]"
status_is 200 "summary range" "$B/api/tables/cdf/changes/summary?from=1&to=2"
check "summary range versions" json "[v['version'] for v in d['versions']]==[1,2]"

# Arrow IPC read back by apache-arrow
if [ -d node_modules/apache-arrow ]; then
  curl -s -o "$tmp/changes.arrow" "$B/api/tables/cdf/changes?from=0&format=arrow"
  cat >"$tmp/read.mjs" <<EOF
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire('$root/package.json');
const { tableFromIPC } = require('apache-arrow');
const t = tableFromIPC(readFileSync(process.argv[2]));
const names = t.schema.fields.map(f => f.name).join(',');
const types = t.getChild('_change_type').toArray().join(',');
console.log(t.numRows + ' ' + names + ' ' + types.split(',').filter(x => x === 'update_postimage').length);
EOF
  check "arrow read by apache-arrow" test "$(node "$tmp/read.mjs" "$tmp/changes.arrow")" = \
    "23 id,name,birthday,_change_type,_commit_version,_commit_timestamp 6"
else
  part_missing "apache-arrow not installed, Arrow read-back not run"
fi

# errors: JSON bodies with a code, the right status
status_is 400 "changes without from" "$B/api/tables/cdf/changes"
check "error body" json "d['error']['code']=='bad_request' and 'from' in d['error']['message']"
status_is 400 "from not a number" "$B/api/tables/cdf/changes?from=abc"
status_is 400 "negative limit" "$B/api/tables/cdf/changes?from=0&limit=-1"
status_is 400 "bad format" "$B/api/tables/cdf/changes?from=0&format=xml"
status_is 400 "from after latest" "$B/api/tables/cdf/changes?from=99"
status_is 400 "backwards range" "$B/api/tables/cdf/changes?from=2&to=1"
status_is 400 "cdf not enabled" "$B/api/tables/dv/changes?from=0"
status_is 400 "bad timestamp" "$B/api/tables/cdf/changes?from_timestamp=yesterday"
status_is 404 "version not found" "$B/api/tables/cdf/rows?version=42"
status_is 400 "version and timestamp" "$B/api/tables/cdf/rows?version=1&timestamp=2024-01-01"
status_is 400 "empty columns" "$B/api/tables/cdf/rows?columns=,"
status_is 404 "unknown column" "$B/api/tables/cdf/rows?columns=nope"
status_is 404 "unknown table" "$B/api/tables/nope"
status_is 404 "unknown endpoint" "$B/api/tables/cdf/nope"
status_is 404 "unknown top level" "$B/etc/passwd"
status_is 405 "POST refused" "$B/api/tables" -X POST -d x
status_is 405 "DELETE refused" "$B/api/tables/cdf" -X DELETE

# traversal and encoded-path attacks: a table is only ever a configured name
for p in "/api/tables/../../../../etc/passwd" "/api/tables/..%2f..%2f..%2fetc%2fpasswd" \
         "/api/tables/%2e%2e/%2e%2e/etc/passwd" "/api/tables/cdf/../../../etc/passwd" \
         "/api/tables/cdf%00/rows" "/api/tables/%63df/../dv" "//api/tables/cdf" "/api/tables/cdf/" \
         "/api/tables/$(python3 -c 'print("%2F"+"%2e%2e%2F"*8)')etc/passwd" \
         "/files/cdf/Li4vLi4vLi4vZXRjL3Bhc3N3ZA?expires=99999999999999&sig=00" "/files/../../etc/passwd"; do
  get "$B$p" --path-as-is
  if [ "$code" = 404 ] || [ "$code" = 403 ]; then ok; else bad "traversal $p: status $code"; fi
  if grep -q "root:" "$tmp/body"; then bad "traversal $p leaked /etc/passwd"; fi
done
# an encoded table name still names only that table
status_is 200 "percent-encoded name" "$B/api/tables/%63df"

# a new commit is visible on the next request (incremental refresh)
status_is 200 "SSE rows from 0" "$B/api/tables/cdf/changes/stream?from=0" --max-time 2
check "SSE events 0..3" bash -c "grep '^id: ' '$tmp/body' | tr -d '\r' | paste -sd' ' | grep -qx 'id: 0 id: 1 id: 2 id: 3'"
check "SSE commit header + rows" bash -c "grep -A1 '^event: commit' '$tmp/body' | grep -q '\"operation\":\"WRITE\"' && grep -c '^data: {\"id\"' '$tmp/body' | grep -qx 23"
curl -s -N "$B/api/tables/cdf/changes/stream?summary=true" --max-time 6 >"$tmp/sse_live" &
sse_pid=$!
sleep 0.5
f=$(ls "$tmp/cdf/birthday=2023-12-22/"part-*.parquet | head -1)
cp "$f" "$tmp/cdf/birthday=2023-12-22/part-99999-appended.c000.snappy.parquet"
size=$(stat -c %s "$f")
now=$(date +%s%3N)
printf '%s\n%s\n' \
  "{\"commitInfo\":{\"timestamp\":$now,\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"}}}" \
  "{\"add\":{\"path\":\"birthday=2023-12-22/part-99999-appended.c000.snappy.parquet\",\"partitionValues\":{\"birthday\":\"2023-12-22\"},\"size\":$size,\"modificationTime\":$now,\"dataChange\":true}}" \
  >"$tmp/cdf/_delta_log/00000000000000000004.json"
status_is 200 "info after commit" "$B/api/tables/cdf"
check "new commit visible on the next request" json "d['version']==4"
status_is 200 "changes of the new commit" "$B/api/tables/cdf/changes?from=4"
check "new commit's rows" bash -c "grep -q '\"_change_type\":\"insert\",\"_commit_version\":4' '$tmp/body'"
wait $sse_pid
check "SSE live tail got the appended commit" bash -c "grep -q '^id: 4' '$tmp/sse_live' && grep -q '\"version\":4,.*\"insert\":1' '$tmp/sse_live'"
check "SSE live tail only new commits" bash -c "! grep -q '^id: 3' '$tmp/sse_live'"
get "$B/api/tables/cdf/changes/stream" --max-time 2 -H "Last-Event-ID: 2"
check "SSE resume after Last-Event-ID" bash -c "grep '^id: ' '$tmp/body' | paste -sd' ' | grep -qx 'id: 3 id: 4'"
check "SSE content type" bash -c "curl -s -D - -o /dev/null --max-time 1 '$B/api/tables/cdf/changes/stream' | grep -qi 'content-type: text/event-stream'"
status_is 400 "SSE bad Last-Event-ID" "$B/api/tables/cdf/changes/stream" -H "Last-Event-ID: x"

# request limits: oversized headers are refused by the server, not absorbed
big=$(head -c 70000 /dev/zero | tr '\0' a)
get "$B/api/tables" -H "X-Big: $big"
check "oversized header refused" test "$code" -ge 400
check "access log lines" bash -c "grep -q 'GET /api/tables/cdf/changes 200' '$tmp/access.log' && grep -q ' 404 ' '$tmp/access.log'"
check "access log has no query strings" bash -c "! grep -q 'sig=' '$tmp/access.log'"

# dev mode refuses a non-loopback address
"$deltac" serve --host 0.0.0.0 --port "$(free_port)" --table "cdf=$tmp/cdf" >/dev/null 2>"$tmp/err"
check "dev mode only on loopback" test $? -eq 2
check "dev mode refusal message" grep -q "loopback" "$tmp/err"
"$deltac" serve --table "bad/name=$tmp/cdf" >/dev/null 2>"$tmp/err"
check "bad table name refused" test $? -eq 2
"$deltac" serve --table "x=$tmp/nope" --port "$(free_port)" >/dev/null 2>"$tmp/err"
check "missing table fails at start" test $? -eq 1

# ---------------------------------------------------- tokens and sharing
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
export DELTAC_TEST_TOKEN=env-token-for-dv
cat >"$tmp/serve.conf" <<EOF
# tables
cdf = $tmp/cdf
dv = file://$DV
share sales = cdf
share other = dv
token reader-all-tables = *
token cdf-only-token = cdf, share:sales
token \$DELTAC_TEST_TOKEN = dv
set signing_key = $KEY
set url_expiry = 600
set max_body = 2048
EOF
start_server sec --config "$tmp/serve.conf"
S="http://127.0.0.1:$PORT_sec"
check "no dev warning with tokens" bash -c "! grep -q WARNING '$tmp/sec.log'"
status_is 401 "no token" "$S/api/tables/cdf"
check "401 says Bearer" bash -c "curl -s -D - -o /dev/null '$S/api/tables/cdf' | grep -qi 'www-authenticate: Bearer'"
status_is 401 "wrong token" "$S/api/tables/cdf" -H "Authorization: Bearer reader-all-tableX"
status_is 401 "token prefix" "$S/api/tables/cdf" -H "Authorization: Bearer reader-all"
status_is 401 "no token, unknown table" "$S/api/tables/nope"
status_is 401 "basic auth is not a token" "$S/api/tables/cdf" -u "a:b"
status_is 200 "right token" "$S/api/tables/cdf" -H "Authorization: Bearer cdf-only-token"
status_is 403 "token for another table" "$S/api/tables/dv" -H "Authorization: Bearer cdf-only-token"
status_is 404 "valid token, unknown table" "$S/api/tables/nope" -H "Authorization: Bearer cdf-only-token"
status_is 200 "env token" "$S/api/tables/dv/rows" -H "Authorization: Bearer env-token-for-dv"
status_is 200 "listing with a scoped token" "$S/api/tables" -H "Authorization: Bearer cdf-only-token"
check "listing shows only readable tables" json "[t['name'] for t in d['tables']]==['cdf']"
status_is 401 "listing without token" "$S/api/tables"
status_is 401 "sharing without token" "$S/delta-sharing/shares"

H=(-H "Authorization: Bearer cdf-only-token")
DS="$S/delta-sharing"
status_is 200 "sharing: list shares" "$DS/shares" "${H[@]}"
check "shares visible to the token" json "[s['name'] for s in d['items']]==['sales']"
status_is 200 "sharing: all shares for *" "$DS/shares" -H "Authorization: Bearer reader-all-tables"
check "all shares" json "[s['name'] for s in d['items']]==['sales','other']"
status_is 403 "sharing: share not allowed" "$DS/shares/other/schemas" "${H[@]}"
status_is 404 "sharing: unknown share" "$DS/shares/nope/schemas" "${H[@]}"
status_is 200 "sharing: get share" "$DS/shares/sales" "${H[@]}"
status_is 200 "sharing: schemas" "$DS/shares/sales/schemas" "${H[@]}"
check "schema default" json "d['items']==[{'name':'default','share':'sales'}]"
status_is 200 "sharing: tables" "$DS/shares/sales/schemas/default/tables" "${H[@]}"
check "tables of the share" json "[t['name'] for t in d['items']]==['cdf'] and d['items'][0]['share']=='sales'"
status_is 200 "sharing: all-tables" "$DS/shares/sales/all-tables" "${H[@]}"
status_is 404 "sharing: table outside the share" "$DS/shares/sales/schemas/default/tables/dv/metadata" "${H[@]}"
status_is 404 "sharing: unknown schema" "$DS/shares/sales/schemas/x/tables/cdf/metadata" "${H[@]}"
TB="$DS/shares/sales/schemas/default/tables/cdf"
check "sharing: version header" bash -c "curl -s -D - -o /dev/null -H 'Authorization: Bearer cdf-only-token' '$TB/version' | tr -d '\r' | grep -qix 'delta-table-version: 4'"
check "sharing: HEAD version" bash -c "curl -s -I -H 'Authorization: Bearer cdf-only-token' '$TB/version' | tr -d '\r' | grep -qix 'delta-table-version: 4'"
status_is 200 "sharing: metadata" "$TB/metadata" "${H[@]}"
check "metadata lines" python3 -c "
import json; l=[json.loads(x) for x in open('$tmp/body')]
assert l[0]=={'protocol':{'minReaderVersion':1}}, l[0]
m=l[1]['metaData']; assert m['format']=={'provider':'parquet'} and m['partitionColumns']==['birthday'] and json.loads(m['schemaString'])['type']=='struct'"
status_is 405 "sharing: GET query" "$TB/query" "${H[@]}"
get "$TB/query" "${H[@]}" -X POST -H 'Content-Type: application/json' -d '{"predicateHints":[],"limitHint":1000}'
check "sharing: query status" test "$code" = 200
cp "$tmp/body" "$tmp/query.ndjson"
# The client: download each signed file (no bearer token), read it with
# deltac parquet cat, add the partition values, and compare with the CLI scan.
check "sharing: query rows = CLI scan" python3 - "$tmp/query.ndjson" "$deltac" "$tmp/cdf" <<'EOF'
import json, subprocess, sys, urllib.request
lines = [json.loads(x) for x in open(sys.argv[1])]
files = [l['file'] for l in lines if 'file' in l]
fields = [f['name'] for f in json.loads(lines[1]['metaData']['schemaString'])['fields']]
assert len(files) == 10, len(files)  # 9 + the appended commit's file
rows = []
for i, f in enumerate(files):
    assert f['expirationTimestamp'] > 0 and f['size'] > 0 and f['id']
    data = urllib.request.urlopen(f['url']).read()
    assert len(data) == f['size'], (len(data), f['size'])
    path = sys.argv[1] + f'.{i}.parquet'
    open(path, 'wb').write(data)
    out = subprocess.run([sys.argv[2], 'parquet', 'cat', '--format', 'ndjson', path], capture_output=True, text=True, check=True).stdout
    for r in out.splitlines():
        # A client reads the schema's columns only (Spark's data files may
        # carry a null _change_type column besides).
        r = json.loads(r); r.update(f['partitionValues']); rows.append({k: r[k] for k in fields})
cli = [json.loads(x) for x in subprocess.run([sys.argv[2], 'scan', '--format', 'ndjson', sys.argv[3]], capture_output=True, text=True, check=True).stdout.splitlines()]
key = lambda r: (r['id'], r['name'])
assert sorted(rows, key=key) == sorted(cli, key=key), (rows, cli)
EOF
get "$TB/query" "${H[@]}" -X POST -d '{"version":0}'
check "sharing: query at version 0" bash -c "test \$(grep -c '\"file\"' '$tmp/body') -eq 10"
status_is 400 "sharing: bad query body" "$TB/query" "${H[@]}" -X POST -d 'not json'
status_is 413 "sharing: body too large" "$TB/query" "${H[@]}" -X POST -d "$(head -c 4000 /dev/zero | tr '\0' ' ')"
status_is 403 "sharing: query without share scope" "$DS/shares/other/schemas/default/tables/dv/query" "${H[@]}" -X POST -d '{}'
status_is 400 "sharing: DV table refused in parquet format" "$DS/shares/other/schemas/default/tables/dv/query" \
  -H "Authorization: Bearer reader-all-tables" -X POST -d '{}'
check "sharing: error code" json "d['errorCode']=='INVALID_PARAMETER_VALUE' and 'deletion vectors' in d['message']"

# signed links: valid, tampered, expired, forged traversal
url=$(python3 -c "import json; print([json.loads(x)['file']['url'] for x in open('$tmp/query.ndjson') if '\"file\"' in x][0])")
status_is 200 "signed link" "$url"
status_is 206 "signed link range" "$url" -H "Range: bytes=-8"
check "range is the parquet footer magic" bash -c "tail -c 4 '$tmp/body' | grep -q PAR1"
last=${url: -1}; other=0; [ "$last" = 0 ] && other=1   # always a different last character
status_is 403 "tampered signature" "${url%?}$other"
status_is 403 "tampered expiry" "$(echo "$url" | sed 's/expires=\([0-9]*\)/expires=1\1/')"
check "tampered -> bad signature" json "'signature' in d['error']['message']"
sign() { # sign TABLE PATH EXPIRES -> URL with a valid signature (the test knows the key)
  python3 - "$@" <<EOF
import base64, hmac, hashlib, sys
t, p, e = sys.argv[1], sys.argv[2], sys.argv[3]
sig = hmac.new(bytes.fromhex('$KEY'), f'deltac-file-v1\n{t}\n{p}\n{e}'.encode(), hashlib.sha256).hexdigest()
print(f'$S/files/{t}/' + base64.urlsafe_b64encode(p.encode()).decode().rstrip('=') + f'?expires={e}&sig={sig}')
EOF
}
fpath=$(python3 -c "import base64; u='$url'.split('/files/cdf/')[1].split('?')[0]; print(base64.urlsafe_b64decode(u+'='*(-len(u)%4)).decode())")
status_is 200 "re-signed link" "$(sign cdf "$fpath" $(( $(date +%s) * 1000 + 60000 )))"
status_is 403 "expired link" "$(sign cdf "$fpath" $(( $(date +%s) * 1000 - 1000 )))"
check "expired message" json "'expired' in d['error']['message']"
for p in "../../../../../../etc/passwd" "/etc/passwd" "file:///etc/passwd" "birthday=2023-12-22/../../../../etc/passwd" \
         "%2e%2e/%2e%2e/%2e%2e/etc/passwd" "_delta_log/../../dv/_delta_log/00000000000000000000.json"; do
  get "$(sign cdf "$p" $(( $(date +%s) * 1000 + 60000 )))"
  if [ "$code" = 404 ]; then ok; else bad "signed traversal $p: status $code"; fi
  if grep -q "root:" "$tmp/body"; then bad "signed traversal $p leaked"; fi
done

# sharing changes: add/cdf/remove actions; the cdf files read back give the CLI's rows
status_is 200 "sharing: changes" "$TB/changes?startingVersion=0&endingVersion=3" "${H[@]}"
check "sharing changes actions" python3 - "$tmp/body" "$deltac" "$tmp/cdf" <<'EOF'
import json, subprocess, sys, urllib.request
lines = [json.loads(x) for x in open(sys.argv[1])]
assert 'protocol' in lines[0] and 'metaData' in lines[1]
acts = lines[2:]
kinds = [next(iter(a)) for a in acts]
assert kinds.count('add') == 10 and 'remove' not in kinds and kinds.count('cdf') > 0, kinds
assert all(a[next(iter(a))]['version'] in (0, 1, 2, 3) for a in acts)
# cdf rows of version 1 = the CLI's change rows of version 1
rows = []
for i, a in enumerate(acts):
    k = next(iter(a)); f = a[k]
    if f['version'] != 1: continue
    p = sys.argv[1] + f'.{i}.parquet'
    open(p, 'wb').write(urllib.request.urlopen(f['url']).read())
    for r in subprocess.run([sys.argv[2], 'parquet', 'cat', '--format', 'ndjson', p], capture_output=True, text=True, check=True).stdout.splitlines():
        r = json.loads(r); rows.append((r['id'], r['_change_type']))
cli = [json.loads(x) for x in subprocess.run([sys.argv[2], 'changes', '--from', '1', '--to', '1', '--format', 'ndjson', sys.argv[3]], capture_output=True, text=True, check=True).stdout.splitlines()]
assert sorted(rows) == sorted((r['id'], r['_change_type']) for r in cli), (rows, cli)
EOF
status_is 400 "sharing: changes without start" "$TB/changes" "${H[@]}"
status_is 400 "sharing: changes past latest" "$TB/changes?startingVersion=9" "${H[@]}"

kill "$PID_sec" "$PID_dev"
wait "$PID_sec"; check "server stops cleanly on SIGTERM" test $? -eq 0
wait "$PID_dev" 2>/dev/null
pids=()

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && prereq_status
