#!/usr/bin/env bash
# Tables on Azure Blob storage, against Azurite started on 127.0.0.1 by
# tests/servers/azurite.sh (and always stopped again): shared conformance
# tables uploaded with an independent Shared Key signer (partition
# directories holding '=', spaces and '%', a table with a checkpoint) read
# through az://, azure:// and abfs:// must give what the local copies give for
# info, schema, files and history; the storage contract, put-if-absent races
# between threads and processes and block uploads through the library
# (unit_storage_test_azure in live mode); a wrong key gives one line with the
# blob, 403 and Azure's code and no key; the shared conformance cases run
# with --table-root az://deltac/conformance. Missing prerequisites
# (node_modules/.bin/azurite-blob, python3, curl) fail the test.
#
# Not yet through storage (issue 15): checkpoints and data files are opened
# by local path, so `info`/`schema` on a table with a checkpoint and `scan`
# report "is not a local filesystem". Those checks accept exactly that
# one-line error (printed as KNOWN GAP) or, once the gap is closed, output
# equal to the local copy's; the conformance cases failing for that reason
# are listed in tests/storage/azure_conformance_xfail.txt.
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
srv=$tmp/azurite
token_pid=
cleanup() {
  bash tests/servers/azurite.sh stop "$srv" >/dev/null 2>&1
  [ -n "$token_pid" ] && kill "$token_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

[ -x node_modules/.bin/azurite-blob ] || { echo "FAIL: node_modules/.bin/azurite-blob is missing (npm install)"; exit 1; }
for b in python3 curl; do
  command -v "$b" >/dev/null || { echo "FAIL: $b is missing (bash scripts/bootstrap.sh installs it)"; exit 1; }
done
[ -x "$bindir/unit_storage_test_azure" ] || { echo "FAIL: $bindir/unit_storage_test_azure not built"; exit 1; }
[ -d "$T" ] || { echo "FAIL: $T is missing"; exit 1; }

if ! bash tests/servers/azurite.sh start "$srv" >"$tmp/env" 2>"$tmp/start.err"; then
  echo "FAIL: azurite did not start: $(tail -3 "$tmp/start.err")"; exit 1
fi
# shellcheck disable=SC1091
. "$tmp/env"

# The tables the conformance cases read, plus the ones compared below, as
# symlinks in one folder: one upload process for all of them.
mkdir -p "$tmp/up"
python3 - "$SHARED/conformance/cases" "$T" "$tmp/up" <<'PY'
import glob, json, os, sys
cases, tables, out = sys.argv[1:4]
names = {json.load(open(f))["table"] for f in glob.glob(os.path.join(cases, "*.json"))}
names |= {"delta-golden.hive.deltatbl-special-chars-in-partition-column",
          "delta-golden.data-reader-escaped-chars", "delta-golden.checkpoint"}
for n in names:
    if os.path.isdir(os.path.join(tables, n)):
        os.symlink(os.path.join(tables, n), os.path.join(out, n))
PY
start=$(date +%s)
if ! bash tests/servers/azurite.sh upload "$tmp/up" conformance 2>"$tmp/upload.err"; then
  echo "FAIL: upload: $(cat "$tmp/upload.err")"; exit 1
fi
echo "uploaded $(find -L "$tmp/up" -type f | wc -l) files in $(( $(date +%s) - start )) s"

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
  "$deltac" "$cmd" "$@" "$remote" >"$tmp/az.out" 2>"$tmp/az.err"
  local rrc=$?
  if [ $lrc -ne 0 ]; then bad "$cmd $* local copy failed: $(cat "$tmp/local.err")"; return; fi
  if [ $rrc -ne 0 ]; then bad "$cmd $* $remote exited $rrc: $(cat "$tmp/az.err")"; return; fi
  if ! diff <(normalise "$tmp/local.out") <(normalise "$tmp/az.out") >"$tmp/diff"; then
    bad "$cmd $* $remote differs from the local copy: $(head -5 "$tmp/diff")"; return
  fi
  ok
}

# same_or_gap: like same, but the known gap (a file read by local path) is
# accepted when it is one line naming the storage.
same_or_gap() {
  local cmd=$1 local=$2 remote=$3; shift 3
  "$deltac" "$cmd" "$@" "$remote" >"$tmp/az.out" 2>"$tmp/az.err"
  local rrc=$?
  if [ $rrc -ne 0 ] && [ "$(wc -l <"$tmp/az.err")" -eq 1 ] && grep -q "is not a local filesystem" "$tmp/az.err"; then
    echo "KNOWN GAP: $cmd $remote: $(cat "$tmp/az.err")"; ok; return
  fi
  same "$cmd" "$local" "$remote" "$@"
}

SPECIAL=delta-golden.hive.deltatbl-special-chars-in-partition-column
ESCAPED=delta-golden.data-reader-escaped-chars
CKPT=delta-golden.checkpoint
ACCT=$AZURE_STORAGE_ACCOUNT_NAME
for cmd in info schema history files; do
  same "$cmd" "$T/$SPECIAL" "az://deltac/conformance/$SPECIAL"
  same "$cmd" "$T/$ESCAPED" "azure://deltac/conformance/$ESCAPED/"
done
# The abfss form names the account in the host; the endpoint still comes
# from AZURE_STORAGE_ENDPOINT.
same files "$T/$SPECIAL" "abfss://deltac@$ACCT.dfs.core.windows.net/conformance/$SPECIAL"
same history "$T/$CKPT" "az://deltac/conformance/$CKPT/"
same info "$T/$CKPT" "az://deltac/conformance/$CKPT" --version 5
same files "$T/$CKPT" "az://deltac/conformance/$CKPT" --version 5
same_or_gap info "$T/$CKPT" "az://deltac/conformance/$CKPT"
same_or_gap schema "$T/$CKPT" "az://deltac/conformance/$CKPT"
same_or_gap scan "$T/$SPECIAL" "az://deltac/conformance/$SPECIAL"

# Emulator mode: the account and its well-known key implied, only the
# endpoint given.
EP=$AZURE_STORAGE_ENDPOINT
if env -u AZURE_STORAGE_ACCOUNT_NAME -u AZURE_STORAGE_ACCOUNT_KEY -u AZURE_ALLOW_HTTP AZURE_STORAGE_USE_EMULATOR=true \
     "$deltac" files "az://deltac/conformance/$SPECIAL" >"$tmp/emu.out" 2>"$tmp/emu.err" &&
   [ "$(wc -l <"$tmp/emu.out")" -eq 4 ]; then
  ok
else
  bad "emulator mode: $(cat "$tmp/emu.err")"
fi

# A table that is not there, a container that is not there: one line, exit 1.
"$deltac" info az://deltac/no-such-table >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok; else bad "missing table: $(cat "$tmp/err")"; fi
"$deltac" info az://nocontainer/t >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "404 ContainerNotFound" "$tmp/err"; then ok
else bad "missing container: $(cat "$tmp/err")"; fi

# A wrong key through the CLI: one line, the blob, 403 and Azure's code
# (Azurite says AuthorizationFailure where Azure says AuthenticationFailed),
# no key.
WRONG=V3JvbmdLZXlXcm9uZ0tleVdyb25nS2V5V3JvbmdLZXk=
AZURE_STORAGE_ACCOUNT_KEY=$WRONG "$deltac" info "az://deltac/conformance/$SPECIAL" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
   grep -Eq "az://deltac/conformance/$SPECIAL/_delta_log/.*: 403 (AuthenticationFailed|AuthorizationFailure)" "$tmp/err" &&
   ! grep -qF "$WRONG" "$tmp/err" && ! grep -qF "$AZURE_STORAGE_ACCOUNT_KEY" "$tmp/err"; then
  ok; echo "wrong key: $(cat "$tmp/err")"
else
  bad "wrong key: exit $rc: $(cat "$tmp/err")"
fi

# The storage contract, the races, the uploads and the wrong-key message
# through the library, against this server.
if DELTAC_AZURE_TEST_URI=az://deltac/unit "$bindir/unit_storage_test_azure" >"$tmp/unit.out" 2>&1; then
  ok; grep -E "race|uploads|wrong key|missing container" "$tmp/unit.out"
else
  bad "unit_storage_test_azure (live): $(tail -8 "$tmp/unit.out")"
fi

# Client credentials, bearer tokens and SAS, against a small token server
# (Azurite takes tokens over HTTPS only): it issues tok-1, tok-2, ... for
# client "cid" with secret "good-secret" and answers HEADs that carry an
# issued token or the SAS signature "goodsig" with Content-Length = tokens
# issued so far, so the test sees when a token was fetched and reused; it
# also answers List Blobs with fixed pages and with hostile documents.
cat >"$tmp/token_server.py" <<'PY'
import http.server, json, sys, threading, urllib.parse
issued = []
blobs = {}
lock = threading.Lock()

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def reply(self, code, body=b"", ctype="application/json", extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(n).decode())
        parts = self.path.split("/")
        ok = (len(parts) == 5 and parts[2:] == ["oauth2", "v2.0", "token"]
              and form.get("grant_type") == ["client_credentials"] and form.get("client_id") == ["cid"]
              and form.get("scope") == ["https://storage.azure.com/.default"])
        if not ok:
            return self.reply(400, b'{"error":"invalid_request"}')
        if form.get("client_secret") != ["good-secret"]:
            return self.reply(401, json.dumps({"error": "invalid_client", "error_description":
                              "bad secret " + form.get("client_secret", [""])[0]}).encode())
        with lock:
            issued.append("tok-%d" % (len(issued) + 1))
            tok = issued[-1]
        exp = 30 if parts[1] == "shortlived" else 3599
        self.reply(200, json.dumps({"token_type": "Bearer", "expires_in": exp, "access_token": tok}).encode())
    def do_HEAD(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        auth = self.headers.get("Authorization", "")
        with lock:
            good = (auth.startswith("Bearer ") and auth[7:] in issued) or q.get("sig") == ["goodsig"]
            count = len(issued)
        if not u.path.startswith("/acct/deltac/") or not good:
            self.send_response(403)
            self.send_header("x-ms-error-code", "AuthenticationFailed")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(count))
        self.send_header("Last-Modified", "Wed, 02 Dec 2026 01:00:00 GMT")
        self.end_headers()

    def do_PUT(self):
        # Ambiguous commits: the first conditional PUT of t/amb/NAME lands
        # (ours for "mine", someone else's for "theirs") but answers 503;
        # the retry then finds the blob there (409 BlobAlreadyExists).
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        path = urllib.parse.urlsplit(self.path).path
        with lock:
            if not path.startswith("/acct/deltac/t/amb/") or self.headers.get("If-None-Match") != "*":
                return self.reply(400, b"")
            if path not in blobs:
                blobs[path] = body if path.endswith("mine") else b"someone else"
                return self.reply(503, b"<?xml version=\"1.0\"?><Error><Code>ServerBusy</Code></Error>",
                                  "application/xml")
        self.reply(409, b"<?xml version=\"1.0\"?><Error><Code>BlobAlreadyExists</Code></Error>",
                   "application/xml")

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        with lock:
            blob = blobs.get(path)
        if blob is not None:
            return self.reply(200, blob, "application/octet-stream")
        # List Blobs for the listing checks: "t/pages/" in pages of two in
        # Azure's whole-name order; "t/badN/" hostile answers.
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        auth = self.headers.get("Authorization", "")
        with lock:
            good = (auth.startswith("Bearer ") and auth[7:] in issued) or q.get("sig") == ["goodsig"]
        if u.path != "/acct/deltac" or q.get("comp") != ["list"] or not good:
            return self.reply(403, b"<?xml version=\"1.0\"?><Error><Code>AuthenticationFailed</Code></Error>",
                              "application/xml")
        prefix = q.get("prefix", [""])[0]
        head = "<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults><Blobs>"
        if prefix == "t/pages/":
            names = ["a b", "a!", "a-c", "a-c0/", "a/", "z"]
            start = int(q.get("marker", ["0"])[0])
            page = names[start:start + 2]
            body = head
            for n in page:
                if n.endswith("/"):
                    body += "<BlobPrefix><Name>t/pages/%s</Name></BlobPrefix>" % n
                else:
                    body += ("<Blob><Name>t/pages/%s</Name><Properties><Last-Modified>Wed, 02 Dec 2026 "
                             "01:00:00 GMT</Last-Modified><Content-Length>7</Content-Length></Properties>"
                             "</Blob>" % n.replace("&", "&amp;"))
            nxt = str(start + 2) if start + 2 < len(names) else ""
            body += "</Blobs><NextMarker>%s</NextMarker></EnumerationResults>" % nxt
        elif prefix == "t/hns/":
            # An ADLS Gen2 directory: a placeholder blob and the prefix.
            body = head + ("<Blob><Name>t/hns/dir</Name><Properties><Content-Length>0</Content-Length>"
                           "</Properties><Metadata><hdi_isfolder>true</hdi_isfolder></Metadata></Blob>"
                           "<BlobPrefix><Name>t/hns/dir/</Name></BlobPrefix><Blob><Name>t/hns/f</Name>"
                           "<Properties><Content-Length>3</Content-Length></Properties><Metadata/></Blob>"
                           "</Blobs><NextMarker/></EnumerationResults>")
        elif prefix == "t/bad1/":
            body = head + "<Blob><Name>t/bad1/x</Name></Blobs></EnumerationResults>"
        elif prefix == "t/bad2/":
            body = head + "<Blob><Name>elsewhere/x</Name></Blob></Blobs><NextMarker/></EnumerationResults>"
        elif prefix == "t/bad3/":
            body = head + ("<Blob><Name>t/bad3/x</Name><Properties><Content-Length>12ab</Content-Length>"
                           "</Properties></Blob></Blobs><NextMarker/></EnumerationResults>")
        elif prefix == "t/bad4/":
            body = head + "<Blob><Name>t/bad4/" + "x" * 100000 + "</Name></Blob></Blobs></EnumerationResults>"
        else:
            body = head + "</Blobs><NextMarker/></EnumerationResults>"
        self.reply(200, body.encode(), "application/xml")

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1], "w") as f:
    f.write(str(srv.server_address[1]))
srv.serve_forever()
PY
python3 "$tmp/token_server.py" "$tmp/token.port" &
token_pid=$!
for _ in $(seq 1 100); do [ -s "$tmp/token.port" ] && break; sleep 0.1; done
if [ ! -s "$tmp/token.port" ]; then
  bad "the token server did not start"
elif DELTAC_AZURE_TOKEN_TEST_ENDPOINT=http://127.0.0.1:$(cat "$tmp/token.port") \
     "$bindir/unit_storage_test_azure" >"$tmp/token.out" 2>&1; then
  ok; grep -E "client secret|token server|ambiguous" "$tmp/token.out"
else
  bad "unit_storage_test_azure (tokens): $(tail -8 "$tmp/token.out")"
fi
kill "$token_pid" 2>/dev/null; wait "$token_pid" 2>/dev/null; token_pid=

# The shared conformance cases with their tables on Azurite. Expected
# failures must fail for the known reason only, never for a store error.
python3 "$SHARED/conformance/check.py" --deltac "$deltac" --table-root az://deltac/conformance -j 2 \
  --expect-fail tests/storage/azure_conformance_xfail.txt >"$tmp/check.out" 2>&1
crc=$?
tail -2 "$tmp/check.out"
if [ $crc -ne 0 ]; then
  bad "conformance on az://: $(grep '^FAIL' "$tmp/check.out" | head -5)"
elif grep '^XFAIL' "$tmp/check.out" | grep -Eq ": [1-5][0-9][0-9] [A-Z][A-Za-z]+|connection|timed out"; then
  bad "an expected failure failed for a store error: $(grep '^XFAIL' "$tmp/check.out" | grep -E ": [1-5][0-9][0-9] [A-Z]|connection|timed out" | head -3)"
else
  ok
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
