#!/usr/bin/env bash
# The web page of deltac serve in a real headless browser (Debian chromium
# driven by npm playwright-core, tests/cli/serve_browser.mjs): against the
# demo table it selects the table and a version range, checks the schema,
# the range's change rows (as many as `deltac changes` reads) with each
# _change_type coloured, and live mode receiving a commit appended during
# the test. The screenshot is kept as a test artifact:
# BUILD/test-artifacts/serve_ui.png (its path is printed).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
for c in curl node; do command -v $c >/dev/null || missing "$c not installed"; done
[ -x /usr/bin/chromium ] || [ -n "${CHROMIUM:-}" ] || missing "chromium not installed (scripts/bootstrap.sh)"
[ -d node_modules/playwright-core ] || missing "npm playwright-core not installed (scripts/bootstrap.sh)"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
B="http://127.0.0.1:$port"
artifacts="$(dirname "$deltac")/test-artifacts"
mkdir -p "$artifacts"
shot="$artifacts/serve_ui.png"
rm -f "$shot"

"$deltac" demo --dir "$tmp/demo" --create-only >/dev/null || { bad "demo table"; finish serve_browser; exit; }
"$deltac" serve --host 127.0.0.1 --port "$port" --table "demo=$tmp/demo" >"$tmp/out" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do grep -q "serving" "$tmp/log" 2>/dev/null && break; sleep 0.05; done
grep -q "serving" "$tmp/log" || { bad "server did not start: $(cat "$tmp/log")"; finish serve_browser; exit; }

# what the page must show: the range's rows as the CLI reads them (versions 5..10 hold
# inserts, deletes and updates), the schema as the API gives it
"$deltac" changes --from 5 --to 10 --format ndjson "$tmp/demo" >"$tmp/range.ndjson"
curl -s "$B/api/tables/demo" >"$tmp/info.json"
python3 - "$tmp/range.ndjson" "$tmp/info.json" >"$tmp/expect.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
info = json.load(open(sys.argv[2]))
schema = info["schema"] if isinstance(info["schema"], dict) else json.loads(info["schema"])
print(json.dumps({"latest": info["version"], "schema": [f["name"] for f in schema["fields"]],
                  "from": 5, "to": 10, "rangeRows": len(rows),
                  "types": sorted({r["_change_type"] for r in rows})}))
PY
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
check "the range has all four change types" python3 -c "import json; assert len(json.load(open('$tmp/expect.json'))['types']) == 4"

echo '{"order_id":5000,"customer":"Zed","product":"mouse","quantity":1,"amount":19.5,"status":"placed","order_date":"2024-05-08"}' \
  >"$tmp/more.ndjson"
timeout 60 node tests/cli/serve_browser.mjs "$B" demo "$tmp/expect.json" "$shot" -- \
  "$deltac" write --input "$tmp/more.ndjson" "$tmp/demo" >"$tmp/seen.json" 2>"$tmp/node.err"
rc=$?
check "browser run (exit $rc): $(cat "$tmp/seen.json" "$tmp/node.err" | head -c 2000)" test $rc -eq 0
check "screenshot written" test -s "$shot"
check "screenshot is a PNG" test "$(head -c 8 "$shot" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
[ -s "$shot" ] && echo "screenshot: $shot"
finish serve_browser
