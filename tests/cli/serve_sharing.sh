#!/usr/bin/env bash
# Delta Sharing conformance of deltac serve: a client written for the test
# from the protocol document (tests/cli/sharing_client.py) reads shared
# tables' snapshots and change feeds through the server, downloading the
# signed data (and deletion vector) files, and gets the same rows as the
# CLI (`deltac scan` / `deltac changes`):
#   - responseformat=parquet: a plain table's snapshot and changes;
#   - responseformat=delta: the demo table (deletion vectors from DELETE and
#     UPDATE, cdc files, in-commit timestamps), at the latest version, at a
#     version and over version ranges, and a table with column mapping and
#     deletion vectors.
# Also the capabilities header negotiation (refusals in parquet format, the
# echoed format, readerfeatures), query with startingVersion/endingVersion
# against the log's own actions, and signed DV links.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
command -v curl >/dev/null || missing "curl not installed"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
B="http://127.0.0.1:$port"

"$deltac" demo --dir "$tmp/demo" --create-only >/dev/null || { bad "demo table"; finish serve_sharing; exit; }
cp -r "$T/delta-rs.cdf-table" "$tmp/cdf"
CM="$T/delta-golden.dv-with-columnmapping"
cat >"$tmp/serve.conf" <<EOF
demo = $tmp/demo
cdf = $tmp/cdf
dvcm = $CM
share s = demo, cdf, dvcm
token sharing-test-token = share:s
EOF
"$deltac" serve --host 127.0.0.1 --port "$port" --config "$tmp/serve.conf" >/dev/null 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do grep -q "serving" "$tmp/log" 2>/dev/null && break; sleep 0.05; done
grep -q "serving" "$tmp/log" || { bad "server did not start: $(cat "$tmp/log")"; finish serve_sharing; exit; }
printf '{"shareCredentialsVersion":1,"endpoint":"%s/delta-sharing/","bearerToken":"sharing-test-token"}\n' "$B" >"$tmp/profile.json"

client() { # client TABLE FORMAT ARGS... -> rows on stdout
  local table=$1 fmt=$2; shift 2
  python3 tests/cli/sharing_client.py --deltac "$deltac" --profile "$tmp/profile.json" --table "s.default.$table" \
    --format "$fmt" "$@"
}
# same_rows WHAT CLIENT_OUT CLI_ARGS...: the client's rows = the CLI's NDJSON rows
# (change timestamps compared in milliseconds)
same_rows() {
  local what=$1 got=$2; shift 2
  "$deltac" "$@" --format ndjson >"$tmp/cli.ndjson" 2>"$tmp/cli.err" || { bad "$what: deltac $*: $(cat "$tmp/cli.err")"; return; }
  if python3 - "$got" "$tmp/cli.ndjson" <<'PY'; then ok; else bad "$what"; fi
import datetime, json, sys
def norm(r):
    ts = r.get("_commit_timestamp")
    if isinstance(ts, str):
        r["_commit_timestamp"] = round(datetime.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp() * 1000)
    return json.dumps(r, sort_keys=True)
a = sorted(norm(json.loads(l)) for l in open(sys.argv[1]))
b = sorted(norm(json.loads(l)) for l in open(sys.argv[2]))
if a != b or not a:
    print(f"client {len(a)} rows, CLI {len(b)} rows; only client: {[x for x in a if x not in b][:2]}; only CLI: {[x for x in b if x not in a][:2]}")
    sys.exit(1)
PY
}

# ------------------------------------------------------- parquet format
client cdf parquet snapshot >"$tmp/rows" && same_rows "parquet snapshot = deltac scan" "$tmp/rows" scan "$tmp/cdf"
client cdf parquet changes --from 0 >"$tmp/rows" && same_rows "parquet changes = deltac changes" "$tmp/rows" changes --from 0 "$tmp/cdf"

# --------------------------------------------------------- delta format
client demo delta snapshot --version 11 >"$tmp/rows" && same_rows "delta snapshot (DVs, before the OPTIMIZE) = deltac scan" "$tmp/rows" scan --version 11 "$tmp/demo"
client demo delta snapshot >"$tmp/rows" && same_rows "delta snapshot = deltac scan" "$tmp/rows" scan "$tmp/demo"
client demo delta changes --from 0 >"$tmp/rows" && same_rows "delta changes 0.. = deltac changes" "$tmp/rows" changes --from 0 "$tmp/demo"
client dvcm delta snapshot >"$tmp/rows" && same_rows "delta snapshot, column mapping + DVs" "$tmp/rows" scan "$CM"
# a client offering both formats gets parquet for a plain table, delta for the DV table
client cdf both snapshot >"$tmp/rows" && same_rows "both offered, plain table" "$tmp/rows" scan "$tmp/cdf"
client demo both snapshot --version 8 >"$tmp/rows" && same_rows "both offered, DV table" "$tmp/rows" scan --version 8 "$tmp/demo"
# delta asked: a plain table's changes in delta format (no in-commit timestamps: file times)
client cdf delta changes --from 0 >"$tmp/rows" && same_rows "delta changes, plain table" "$tmp/rows" changes --from 0 "$tmp/cdf"

# ------------------------------------------------ capabilities header
TB="$B/delta-sharing/shares/s/schemas/default/tables"
AUTH="Authorization: Bearer sharing-test-token"
CAP="delta-sharing-capabilities: responseformat=delta;readerfeatures=deletionvectors,columnmapping"
req() { # req OUT URL [curl args]: body in OUT, headers in OUT.h, status echoed
  local out=$1 url=$2; shift 2
  curl -s -o "$out" -D "$out.h" -w '%{http_code}' -H "$AUTH" "$@" "$url"
}
format_of() { tr -d '\r' <"$1.h" | awk -F': ' 'tolower($1) == "delta-sharing-capabilities" { print $2 }'; }
check "parquet query of a DV table: 400" test "$(req "$tmp/b" "$TB/demo/query" -d '{"version":11}')" = 400
check "... says why and what to ask for" grep -q "deletion vectors.*responseformat=delta" "$tmp/b"
check "parquet query of a column-mapping table: 400" test "$(req "$tmp/b" "$TB/dvcm/query" -d '{}')" = 400
check "parquet changes over DV commits: 400" test "$(req "$tmp/b" "$TB/demo/changes?startingVersion=7&endingVersion=7")" = 400
check "delta query: 200" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d '{"version":11}')" = 200
check "delta query: format echoed" test "$(format_of "$tmp/b")" = "responseformat=delta"
check "delta query: protocol and metadata wrap the log's" python3 - "$tmp/b" <<'PY'
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
p = l[0]["protocol"]["deltaProtocol"]
assert p["minReaderVersion"] == 3 and p["readerFeatures"] == ["deletionVectors"], p
m = l[1]["metaData"]
assert m["version"] == 11 and m["numFiles"] == len(l) - 2 and m["deltaMetadata"]["partitionColumns"] == ["order_date"], m
dvs = [f["file"] for f in l[2:] if "deletionVector" in f["file"]["deltaSingleAction"]["add"]]
# file DVs become signed links ("p"); the demo's small DVs are inline in the log and stay so
def shared_dv(f):
    d = f["deltaSingleAction"]["add"]["deletionVector"]
    return (d["storageType"] == "p" and f["deletionVectorFileId"]) or (d["storageType"] == "i" and "offset" not in d)
assert dvs and all(shared_dv(f) for f in dvs), dvs
PY
check "delta metadata: 200" test "$(req "$tmp/b" "$TB/demo/metadata" -H "$CAP")" = 200
check "delta metadata lines" python3 -c "
import json; l=[json.loads(x) for x in open('$tmp/b')]
assert len(l) == 2 and 'deltaProtocol' in l[0]['protocol'] and l[1]['metaData']['deltaMetadata']['name'] == 'orders'"
check "both formats offered, DV table: delta" test "$(req "$tmp/b" "$TB/demo/query" -d '{"version":11}' \
  -H "delta-sharing-capabilities: responseFormat=parquet,delta; readerFeatures=DeletionVectors")-$(format_of "$tmp/b")" = "200-responseformat=delta"
check "both formats offered, plain table: parquet" test "$(req "$tmp/b" "$TB/cdf/query" -d '{}' \
  -H "delta-sharing-capabilities: responseformat=delta,parquet")-$(format_of "$tmp/b")" = "200-responseformat=parquet"
check "delta without readerfeatures deletionvectors: 400" test "$(req "$tmp/b" "$TB/demo/query" -d '{"version":11}' \
  -H "delta-sharing-capabilities: responseformat=delta;readerfeatures=columnmapping")" = 400
check "... names the feature" grep -q "deletionVectors" "$tmp/b"
check "delta without columnmapping: 400" test "$(req "$tmp/b" "$TB/dvcm/query" -d '{}' \
  -H "delta-sharing-capabilities: responseformat=delta;readerfeatures=deletionvectors")" = 400
check "unknown response format: 400" test "$(req "$tmp/b" "$TB/cdf/query" -d '{}' -H "delta-sharing-capabilities: responseformat=avro")" = 400

# signed DV links: the DV file is served, a tampered link is not (the
# column-mapping table's DVs are in files; the demo's are inline)
req "$tmp/b" "$TB/dvcm/query" -H "delta-sharing-capabilities: responseformat=delta;readerfeatures=deletionvectors,columnmapping" -d '{}' >/dev/null
dvurl=$(python3 -c "
import json
for x in open('$tmp/b'):
    a = json.loads(x).get('file', {}).get('deltaSingleAction', {}).get('add', {})
    if 'deletionVector' in a: print(a['deletionVector']['pathOrInlineDv']); break")
check "DV link served" test "$(curl -s -o "$tmp/dv.bin" -w '%{http_code}' "$dvurl")" = 200
check "DV file starts with its format version" test "$(head -c 1 "$tmp/dv.bin" | od -An -tu1 | tr -d ' ')" = 1
check "tampered DV link: 403" test "$(curl -s -o /dev/null -w '%{http_code}' "${dvurl/sig=/sig=0}")" = 403

# ------------------------------------- query with startingVersion
# the answer's add/remove actions are the log's dataChange actions of those versions
log_actions() { # log_actions TABLE FROM TO -> "version kind path dv-cardinality" lines
  python3 - "$@" <<'PY'
import json, sys, urllib.parse
t, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for v in range(a, b + 1):
    for line in open(f"{t}/_delta_log/{v:020d}.json"):
        act = json.loads(line)
        for k in ("add", "remove"):
            if k in act and act[k].get("dataChange", True):
                print(v, k, urllib.parse.unquote(act[k]["path"]), act[k].get("deletionVector", {}).get("cardinality", 0))
PY
}
answer_actions() { # answer_actions FILE -> the same lines from a query answer
  python3 - "$1" <<'PY'
import base64, json, sys, urllib.parse
def path(url):
    seg = url.split("/files/")[1].split("?")[0].split("/")[1]
    return urllib.parse.unquote(base64.urlsafe_b64decode(seg + "=" * (-len(seg) % 4)).decode())
for x in open(sys.argv[1]):
    l = json.loads(x)
    if "file" in l:  # delta
        (k, a), = l["file"]["deltaSingleAction"].items()
        print(l["file"]["version"], k, path(a["path"]), a.get("deletionVector", {}).get("cardinality", 0))
    elif "add" in l or "remove" in l:
        (k, a), = l.items()
        print(a["version"], k, path(a["url"]), 0)
PY
}
check "parquet query since 1: 200" test "$(req "$tmp/b" "$TB/cdf/query" -d '{"startingVersion":1}')" = 200
check "... Delta-Table-Version is the start" bash -c "tr -d '\r' <'$tmp/b.h' | grep -qix 'delta-table-version: 1'"
check "... the log's data changes of 1..3" test "$(answer_actions "$tmp/b" | sort)" = "$(log_actions "$tmp/cdf" 1 3 | sort)"
check "delta query since 5 to 8: 200" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d '{"startingVersion":5,"endingVersion":8}')" = 200
check "... the log's data changes of 5..8, DVs included" test "$(answer_actions "$tmp/b" | sort)" = "$(log_actions "$tmp/demo" 5 8 | sort)"
check "... historical metadata only where a version has one" test "$(grep -c '"metaData"' "$tmp/b")" = 1
check "delta query since 0: metadata of version 0 too" bash -c "test \"\$(curl -s -H '$AUTH' -H '$CAP' '$TB/demo/query' -d '{\"startingVersion\":0,\"endingVersion\":0}' | grep -c '\"metaData\"')\" = 2"
check "parquet query since a DV commit: 400" test "$(req "$tmp/b" "$TB/demo/query" -d '{"startingVersion":5}')" = 400
check "startingVersion after the latest: 400" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d '{"startingVersion":99}')" = 400
check "endingVersion without startingVersion: 400" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d '{"endingVersion":3}')" = 400
check "startingVersion with version: 400" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d '{"startingVersion":1,"version":2}')" = 400
# time travel by timestamp: the commit time of version 3 gives version 3's files
ts3=$("$deltac" changes --from 3 --to 3 --format ndjson "$tmp/demo" | head -n1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["_commit_timestamp"])')
client demo delta snapshot --timestamp "$ts3" >"$tmp/rows" && same_rows "delta snapshot at a timestamp" "$tmp/rows" scan --version 3 "$tmp/demo"

# ----------------------------------------------- predicate and limit hints
# hinted_parts BODY -> the order_date of each file the query answers, sorted
hinted_parts() {
  curl -s -H "$AUTH" -H "$CAP" "$TB/demo/query" -d "$1" | python3 -c '
import json, sys
for x in sys.stdin:
    l = json.loads(x)
    if "file" in l: print(l["file"]["deltaSingleAction"]["add"]["partitionValues"]["order_date"])' | sort
}
all_parts=$("$deltac" files --format ndjson "$tmp/demo" | python3 -c '
import json, sys
for x in sys.stdin: print(json.loads(x)["partition_values"]["order_date"])' | sort)
parts_where() { echo "$all_parts" | awk -v lo="$1" -v hi="$2" '$1 >= lo && $1 <= hi'; }
eq03='{"op":"equal","children":[{"op":"column","name":"order_date","valueType":"date"},{"op":"literal","value":"2024-05-03","valueType":"date"}]}'
jbody() { python3 -c 'import json,sys; print(json.dumps({"jsonPredicateHints": sys.argv[1]}))' "$1"; }
check "demo has several partitions" test "$(echo "$all_parts" | sort -u | wc -l)" -ge 4
check "json hint: equal on the partition column" test "$(hinted_parts "$(jbody "$eq03")")" = "$(parts_where 2024-05-03 2024-05-03)"
check "json hint: and / or / not / isNull" test "$(hinted_parts "$(jbody '{"op":"and","children":[
  {"op":"or","children":[{"op":"greaterThanOrEqual","children":[{"op":"column","name":"order_date","valueType":"date"},{"op":"literal","value":"2024-05-05","valueType":"date"}]},
                         {"op":"lessThan","children":[{"op":"column","name":"order_date","valueType":"date"},{"op":"literal","value":"2024-05-02","valueType":"date"}]}]},
  {"op":"not","children":[{"op":"isNull","children":[{"op":"column","name":"order_date","valueType":"date"}]}]},
  {"op":"not","children":[{"op":"equal","children":[{"op":"literal","value":"2024-05-06","valueType":"date"},{"op":"column","name":"order_date","valueType":"date"}]}]}]}')")" \
  = "$( (parts_where 2024-05-05 2024-05-05; parts_where 2024-05-07 9999; parts_where 0 2024-05-01) | sort)"
check "SQL hints, ANDed" test "$(hinted_parts '{"predicateHints":["order_date >= '"'"'2024-05-03'"'"'","order_date <= '"'"'2024-05-04'"'"'"]}')" = "$(parts_where 2024-05-03 2024-05-04)"
check "a SQL hint that does not parse is skipped, the others used" test "$(hinted_parts '{"predicateHints":["order_date = '"'"'2024-05-03'"'"'","no_such_col > 1","((("]}')" = "$(parts_where 2024-05-03 2024-05-03)"
check "an unknown JSON op: every file" test "$(hinted_parts "$(jbody '{"op":"like","children":[]}')")" = "$all_parts"
check "a JSON hint that is not JSON: every file" test "$(hinted_parts '{"jsonPredicateHints":"{not json"}')" = "$all_parts"
check "a stats hint leaves out files: 200, none for order_id < 0" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d "$(jbody '{"op":"lessThan","children":[{"op":"column","name":"order_id","valueType":"long"},{"op":"literal","value":"0","valueType":"long"}]}')")-$(grep -c '"file"' "$tmp/b")-$(grep -c '"metaData"' "$tmp/b")" = "200-0-1"
# the client still gets exactly the matching rows through a hint
client demo delta snapshot --json-hint "$eq03" >"$tmp/rows" && same_rows "client rows with a json hint" "$tmp/rows" scan --filter "order_date = DATE '2024-05-03'" "$tmp/demo"
check "limitHint 1: one file" test "$(hinted_parts '{"limitHint":1}' | wc -l)" = 1
check "limitHint large: every file" test "$(hinted_parts '{"limitHint":1000000}')" = "$all_parts"
check "limitHint with a predicate: not applied" test "$(hinted_parts "{\"limitHint\":1,\"jsonPredicateHints\":$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$eq03")}")" = "$(parts_where 2024-05-03 2024-05-03)"
check "limitHint not an integer: 400" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d '{"limitHint":"ten"}')" = 400
check "predicateHints not an array: 400" test "$(req "$tmp/b" "$TB/demo/query" -H "$CAP" -d '{"predicateHints":"x = 1"}')" = 400

# ------------------------------------------------ listing pages
SH="$B/delta-sharing/shares/s"
page_names() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(i["name"] for i in d.get("items", [])), d.get("nextPageToken", "-"))' "$1"; }
check "tables, 2 per page: 200" test "$(req "$tmp/b" "$SH/all-tables?maxResults=2")" = 200
check "... first page: two tables and a token" test "$(page_names "$tmp/b")" = "demo cdf p2"
check "... next page: the last table, no token" test "$(req "$tmp/b" "$SH/schemas/default/tables?maxResults=2&pageToken=p2")-$(page_names "$tmp/b")" = "200-dvcm -"
check "maxResults=0: no items, a token" test "$(req "$tmp/b" "$SH/all-tables?maxResults=0")-$(page_names "$tmp/b")" = "200- p0"
check "no maxResults: every table" test "$(req "$tmp/b" "$SH/all-tables")-$(page_names "$tmp/b")" = "200-demo cdf dvcm -"
check "shares paged" test "$(req "$tmp/b" "$B/delta-sharing/shares?maxResults=1")-$(page_names "$tmp/b")" = "200-s -"
check "schemas paged" test "$(req "$tmp/b" "$SH/schemas?maxResults=0")-$(page_names "$tmp/b")" = "200- p0"
check "a page token not ours: 400" test "$(req "$tmp/b" "$SH/all-tables?pageToken=xyz")" = 400
check "negative maxResults: 400" test "$(req "$tmp/b" "$SH/all-tables?maxResults=-1")" = 400

# the server stops cleanly (under ASan: no leak or error report either)
kill "$pid"; wait "$pid"; rc=$?; pid=
check "server stops cleanly on SIGTERM (exit $rc)" test $rc -eq 0
check "no sanitizer report: $(grep -m1 Sanitizer "$tmp/log")" bash -c "! grep -q Sanitizer '$tmp/log'"
finish serve_sharing
