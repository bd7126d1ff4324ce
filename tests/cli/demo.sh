#!/usr/bin/env bash
# deltac demo: writes the demo orders table (14 commits: daily appends, an
# UPDATE and a DELETE with deletion vectors, one day's orders replaced by an
# overwrite with replace_where, a second UPDATE, late orders, a MERGE, an
# OPTIMIZE) and serves it; the API shows every version with the change counts the history
# implies, the same counts `deltac changes` reads; a second run reuses the
# table and writes nothing.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
command -v curl >/dev/null || missing "curl not installed"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
B="http://127.0.0.1:$port"

"$deltac" demo --dir "$tmp/t" --port "$port" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 200); do grep -q "serving" "$tmp/err" && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
grep -q "serving 1 table" "$tmp/err" && ok || { bad "demo did not serve: $(cat "$tmp/out" "$tmp/err")"; finish demo; exit; }
grep -q "open $B/" "$tmp/out" && ok || bad "demo prints the URL: $(cat "$tmp/out")"
[ "$(grep -c "^  version [0-9]*: " "$tmp/out")" = 14 ] && ok || bad "14 commits written: $(cat "$tmp/out")"

curl -s "$B/api/tables/demo" >"$tmp/info"
curl -s "$B/api/tables/demo/changes/summary?from=0" >"$tmp/summary"
"$deltac" changes --from 0 --format ndjson "$tmp/t" >"$tmp/changes"
python3 - "$tmp/info" "$tmp/summary" "$tmp/changes" <<'PY' && ok || bad "demo table and its change summary"
import json, sys, collections
info = json.load(open(sys.argv[1]))
s = json.load(open(sys.argv[2]))
assert info["version"] == 13 and info["change_data_feed"], info
assert info["partition_columns"] == ["order_date"], info
assert info["properties"]["delta.enableDeletionVectors"] == "true", info
assert "deletionVectors" in info["protocol"]["reader_features"], info["protocol"]
v = s["versions"]
assert [x["version"] for x in v] == list(range(14)), v
assert v[0]["operation"] == "CREATE TABLE AS SELECT", v[0]
ops = {x["version"]: x["operation"] for x in v}
assert ops[5] == ops[10] == "UPDATE" and ops[7] == "DELETE", ops
assert ops[12] == "MERGE" and ops[13] == "OPTIMIZE", ops
# appends only insert; 5 and 10 update, 7 deletes one order, 8 replaces the 28 orders of 2024-05-03,
# 12 updates 12 orders' status and inserts 3, 13 changes no row
for x in v:
    n = x["version"]
    if n in (5, 10): assert x["insert"] == x["delete"] == 0 and x["update_preimage"] == x["update_postimage"] > 0, x
    elif n == 7: assert x["delete"] == 1 and x["insert"] == x["update_preimage"] == 0, x
    elif n == 8: assert x["insert"] == x["delete"] == 28 and x["update_preimage"] == 0, x
    elif n == 12: assert x["insert"] == 3 and x["update_preimage"] == x["update_postimage"] == 12 and x["delete"] == 0, x
    elif n == 13: assert x["insert"] == x["delete"] == x["update_preimage"] == x["update_postimage"] == 0, x
    else: assert x["insert"] > 0 and x["delete"] == x["update_preimage"] == x["update_postimage"] == 0, x
assert sum(x["insert"] - x["delete"] for x in v) == info["num_rows"] == 177, info
# the same counts as the CLI's change feed, version by version
cli = collections.Counter((r["_commit_version"], r["_change_type"]) for r in map(json.loads, open(sys.argv[3])))
for x in v:
    for t in ("insert", "delete", "update_preimage", "update_postimage"): assert cli[(x["version"], t)] == x[t], (x, t)
PY
kill "$pid"; wait "$pid" 2>/dev/null; pid=

# a second run reuses the table
"$deltac" demo --dir "$tmp/t" --create-only >"$tmp/out2" || bad "second run failed"
grep -q "reused" "$tmp/out2" && ok || bad "second run reuses: $(cat "$tmp/out2")"
[ "$("$deltac" info --format json "$tmp/t" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')" = 13 ] \
  && ok || bad "second run wrote commits"

finish demo
