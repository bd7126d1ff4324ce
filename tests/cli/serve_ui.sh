#!/usr/bin/env bash
# The web page of deltac serve: served at / and /ui as HTML with a strict
# Content-Security-Policy, self-contained (no external scripts, styles or
# URLs, so it works offline), its script parses (node --check), and every
# API path it calls (the API object of src/serve/ui/index.html) answers 200
# against a real table with the body the page expects: JSON, or for the live
# tail an event stream. With tokens configured the page itself stays
# readable while the API asks for the bearer token the page sends. The
# page's script runs in Node against the server (serve_ui_dom.js).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
command -v curl >/dev/null || missing "curl not installed"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
# start NAME ARGS...: deltac serve on a free port; sets B (base URL)
start() {
  local name=$1; shift
  local port; port=$(free_port)
  "$deltac" serve --host 127.0.0.1 --port "$port" "$@" >"$tmp/$name.out" 2>"$tmp/$name.log" &
  pids+=($!)
  B="http://127.0.0.1:$port"
  for _ in $(seq 100); do
    grep -q "serving" "$tmp/$name.log" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "server $name did not start:"; cat "$tmp/$name.log"; exit 1
}
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }

"$deltac" demo --dir "$tmp/demo" --create-only >/dev/null || { bad "demo table"; finish serve_ui; exit; }
start dev --table "demo=$tmp/demo"

# the page, at / and /ui, is HTML with a CSP that only allows this origin
curl -s -D "$tmp/h" -o "$tmp/page.html" "$B/"
check "/ is 200" grep -q "^HTTP/1.1 200" "$tmp/h"
check "/ is text/html" grep -qi "^content-type: text/html; charset=utf-8" "$tmp/h"
check "/ has a same-origin CSP" grep -qi "^content-security-policy: default-src 'none'.*connect-src 'self'" "$tmp/h"
check "/ is the page" grep -q "<title>deltac</title>" "$tmp/page.html"
check "/ is src/serve/ui/index.html" cmp -s "$tmp/page.html" src/serve/ui/index.html
curl -s -o "$tmp/ui.html" "$B/ui"
check "/ui is the page" cmp -s "$tmp/page.html" "$tmp/ui.html"
check "the API index moved to /api" test "$(curl -s "$B/api" | python3 -c 'import json,sys; print(json.load(sys.stdin)["service"])')" = deltac

# self-contained: nothing loaded from elsewhere, no absolute URLs at all
check "no external references" python3 - "$tmp/page.html" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
bad = re.findall(r'https?://|//[a-z0-9.-]+\.[a-z]{2,}/|<script[^>]+src=|<link[^>]+href=|<img|<iframe|@import', page, re.I)
bad += re.findall(r'url\(', "".join(re.findall(r"<style>(.*?)</style>", page, re.S)))
print(*bad)
sys.exit(1 if bad else 0)
PY
# every request goes through url(): one fetch, no EventSource, no literal path outside API
check "one fetch call, no EventSource" test "$(grep -c 'fetch(' "$tmp/page.html")-$(grep -c 'EventSource(' "$tmp/page.html")" = "1-0"
if command -v node >/dev/null; then
  python3 - "$tmp/page.html" "$tmp/page.js" <<'PY'
import re, sys
open(sys.argv[2], "w").write("\n".join(re.findall(r"<script>(.*?)</script>", open(sys.argv[1]).read(), re.S)))
PY
  check "the script parses" node --check "$tmp/page.js"
fi

# every API path of the page against the demo table
python3 - "$tmp/page.html" >"$tmp/paths" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
api = re.search(r"const API = \{(.*?)\};", page, re.S).group(1)
names = set()
for name, path in re.findall(r"(\w+): '([^']*)'", api):
    names.add(name)
    print(name, path.replace("{t}", "demo").replace("{from}", "0").replace("{to}", "1"))
# url('name', ...) and API.name uses must name an entry
used = set(re.findall(r"url\('(\w+)'", page)) | set(re.findall(r"API\.(\w+)", page))
missing = used - names
if missing: print("MISSING", *sorted(missing))
PY
check "every API entry used is defined" test -z "$(grep MISSING "$tmp/paths")"
check "the page calls 7 API paths" test "$(grep -vc MISSING "$tmp/paths")" = 7
while read -r name path; do
  [ "$name" = MISSING ] && continue
  case "$path" in /api/*) ok ;; *) bad "$name: $path is not an /api path" ;; esac
  if [ "$name" = stream ]; then
    # the live tail stays open: read what arrives in a second
    curl -s -N --max-time 1 -D "$tmp/sh" -o "$tmp/sse" "$B$path"
    check "$name: 200" grep -q "^HTTP/1.1 200" "$tmp/sh"
    check "$name: event stream" grep -qi "^content-type: text/event-stream" "$tmp/sh"
    check "$name: summary events" grep -q "^event: summary" "$tmp/sse"
    continue
  fi
  code=$(curl -s -o "$tmp/body" -w '%{http_code}' "$B$path")
  check "$name: $path: status $code" test "$code" = 200
  check "$name: $path: JSON" python3 -c "import json; json.load(open('$tmp/body'))"
  # the filter boxes append filter= to rows and changes
  if [ "$name" = rows ] || [ "$name" = changes ]; then
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' -G "$B$path" --data-urlencode "filter=amount > 100")
    check "$name with filter: status $code" test "$code" = 200
    check "$name with filter: rows match" python3 -c "
import json; rows = json.load(open('$tmp/body')); assert rows and all(r['amount'] > 100 for r in rows)"
    code=$(curl -s -o "$tmp/body" -w '%{http_code}' -G "$B$path" --data-urlencode "filter=amount >")
    check "$name with a bad filter: 400 with a message" python3 -c "
import json; assert $code == 400 and json.load(open('$tmp/body'))['error']['message']"
  fi
done <"$tmp/paths"

# the page's script itself, run in Node with a stand-in DOM against this server
# (serve_ui_dom.js): every panel renders, clicks, filters, and live mode
# prepends a commit appended meanwhile
if command -v node >/dev/null; then
  echo '{"order_id":5000,"customer":"Zed","product":"mouse","quantity":1,"amount":19.5,"status":"placed","order_date":"2024-05-11"}' \
    >"$tmp/more.ndjson"
  timeout 120 node tests/cli/serve_ui_dom.js "$tmp/page.html" "$B" demo \
    "$deltac" write --input "$tmp/more.ndjson" "$tmp/demo" >"$tmp/dom.json"
  check "the page in a DOM: $(head -c 2000 "$tmp/dom.json")" python3 - "$tmp/dom.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert "error" not in d, d["error"]
assert d["tables"] == ["demo"] and d["name"] == "demo"
assert "change data feedon" in d["info"] and "partition columnsorder_date" in d["info"] and "rows177" in d["info"]
assert d["schemaColumns"] == 7 and d["summaryVersions"] == list(range(13, -1, -1))
assert d["rows"] == 177 and d["history"] == 14
assert d["changesTitle"] == "Changes of version 12" and d["changeRows"] == 27 and "_change_type" in d["changeHeader"]
assert d["rangeTitle"] == "Changes of versions 0 to 12" and d["rangeRows"] == 277
assert d["filteredTypes"] == ["delete"]
assert "ON t.`order_id` = s.`order_id`" in d["merge"] and "THEN DELETE" in d["merge"]
assert d["badFilter"].startswith("filter:")
assert d["liveVersion"] == 14
PY
fi

# with tokens: the page loads without one; the API wants the bearer token it sends
printf 'demo = %s\ntoken ui-secret = demo\n' "$tmp/demo" >"$tmp/serve.conf"
start tok --config "$tmp/serve.conf"
check "page without a token" test "$(curl -s -o /dev/null -w '%{http_code}' "$B/")" = 200
check "API without a token: 401" test "$(curl -s -o /dev/null -w '%{http_code}' "$B/api/tables")" = 401
check "API with the bearer token" test "$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer ui-secret' "$B/api/tables/demo/changes/summary?from=0")" = 200
check "the page sends a bearer token" grep -q "Authorization: 'Bearer ' + t" "$tmp/page.html"
if command -v node >/dev/null; then
  UI_TOKEN=ui-secret timeout 60 node tests/cli/serve_ui_dom.js "$tmp/page.html" "$B" demo >"$tmp/dom2.json"
  check "the page asks for the token, then loads: $(head -c 500 "$tmp/dom2.json")" python3 -c "
import json; d = json.load(open('$tmp/dom2.json')); assert 'error' not in d and d['prompted'] and d['tables'] == ['demo'] and d['rows'] > 0"
fi

finish serve_ui
