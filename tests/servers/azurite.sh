#!/usr/bin/env bash
# A throwaway Azurite (Azure Blob emulator) on 127.0.0.1, with its data, log
# and pid file under DIR.
#
#   tests/servers/azurite.sh start DIR   start on a free port, wait until
#                                        ready, create the container "deltac",
#                                        then print `export AZURE_...=...`
#                                        lines for a shell to eval
#   tests/servers/azurite.sh stop DIR    stop it by its pid file
#   tests/servers/azurite.sh upload SRC PREFIX
#                                        copy every file under directory SRC
#                                        to az://deltac/PREFIX/... (with the
#                                        variables printed by start)
#
# Needs node_modules/.bin/azurite-blob (`npm install`, see package.json) and
# python3 (Shared Key signing for the container and the uploads). Azurite
# accepts the account devstoreaccount1 with the emulator's published key.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR | upload SRC PREFIX" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ACCOUNT=devstoreaccount1
KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

log() { echo "azurite.sh: $*" >&2; }
die() { log "$*"; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# azure_put ENDPOINT PATH_AND_QUERY: a Shared Key signed PUT with an empty
# body (a container); azure_put ENDPOINT --tree SRC PREFIX: every file under
# SRC as a blob of container deltac under PREFIX, in one process. Prints the
# HTTP status (the first failing one for a tree). Written from the "Authorize
# with Shared Key" documentation, independently of the library's signer.
azure_put() {
  python3 - "$@" <<'PY'
import base64, datetime, hashlib, hmac, os, sys, urllib.parse, urllib.request, urllib.error
account = os.environ.get("AZURE_STORAGE_ACCOUNT_NAME", "devstoreaccount1")
key = base64.b64decode(os.environ["AZURE_STORAGE_ACCOUNT_KEY"])

def put(url, body):
    u = urllib.parse.urlsplit(url)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%a, %d %b %Y %H:%M:%S GMT")
    headers = {"x-ms-date": date, "x-ms-version": "2021-08-06"}
    if "restype=container" not in u.query:
        headers["x-ms-blob-type"] = "BlockBlob"
    canon = "".join(f"{k}:{headers[k]}\n" for k in sorted(headers))
    resource = f"/{account}{u.path}"
    for name, vals in sorted(urllib.parse.parse_qs(u.query, keep_blank_values=True).items()):
        resource += f"\n{name.lower()}:{','.join(sorted(vals))}"
    # urllib would add a form Content-Type to a body; name one and sign it.
    ctype = "application/octet-stream"
    length = str(len(body)) if body else ""
    sts = "PUT\n\n\n" + length + "\n\n" + ctype + "\n\n\n\n\n\n\n" + canon + resource
    sig = base64.b64encode(hmac.new(key, sts.encode(), hashlib.sha256).digest()).decode()
    req = urllib.request.Request(url, data=body, method="PUT", headers={
        **headers, "Authorization": f"SharedKey {account}:{sig}",
        "Content-Length": str(len(body)), "Content-Type": ctype})
    try:
        return urllib.request.urlopen(req, timeout=30).status
    except urllib.error.HTTPError as e:
        return e.code

endpoint = sys.argv[1].rstrip("/")
if sys.argv[2] != "--tree":
    print(put(endpoint + sys.argv[2], b""))
    sys.exit(0)
src, prefix = sys.argv[3], sys.argv[4]
jobs = []
for root, _, files in os.walk(src, followlinks=True):
    for f in sorted(files):
        path = os.path.join(root, f)
        jobs.append((path, prefix + "/" + os.path.relpath(path, src)))

def one(job):
    path, name = job
    with open(path, "rb") as fh:
        return put(endpoint + "/deltac/" + urllib.parse.quote(name, safe="/-_.~"), fh.read()), name

# A few requests in flight: thousands of small files go up in seconds.
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(8) as pool:
    for code, name in pool.map(one, jobs):
        if code != 201:
            print(code, name)
            sys.exit(0)
print(201)
PY
}

stop() {
  local f=$DIR/azurite.pid pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

start() {
  local bin=$ROOT/node_modules/.bin/azurite-blob
  [ -x "$bin" ] || die "missing $bin (run npm install in $ROOT)"
  command -v python3 >/dev/null || die "missing python3"
  command -v curl >/dev/null || die "missing curl"
  [ -f "$DIR/azurite.pid" ] && kill -0 "$(cat "$DIR/azurite.pid")" 2>/dev/null &&
    die "$DIR already holds a running Azurite (stop it first)"
  rm -rf "$DIR/data"
  mkdir -p "$DIR/data"
  local port
  port=$(free_port)
  "$bin" --silent --location "$DIR/data" --blobHost 127.0.0.1 --blobPort "$port" \
    >"$DIR/azurite.log" 2>&1 </dev/null &
  echo $! >"$DIR/azurite.pid"
  trap 'stop; log "start failed; the log is $DIR/azurite.log"' ERR
  local ready=0
  for _ in $(seq 1 200); do
    kill -0 "$(cat "$DIR/azurite.pid")" 2>/dev/null || die "azurite exited: $(tail -3 "$DIR/azurite.log")"
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/$ACCOUNT?comp=list" 2>/dev/null)" != 000 ]; then
      ready=1; break
    fi
    sleep 0.1
  done
  [ "$ready" = 1 ] || die "azurite did not answer on 127.0.0.1:$port"
  local endpoint=http://127.0.0.1:$port/$ACCOUNT code
  code=$(AZURE_STORAGE_ACCOUNT_NAME=$ACCOUNT AZURE_STORAGE_ACCOUNT_KEY=$KEY azure_put "$endpoint" "/deltac?restype=container")
  [ "$code" = 201 ] || die "creating container deltac: HTTP $code"
  trap - ERR
  cat <<ENV
export AZURE_STORAGE_ACCOUNT_NAME=$ACCOUNT
export AZURE_STORAGE_ACCOUNT_KEY=$KEY
export AZURE_STORAGE_ENDPOINT=$endpoint
export AZURE_ALLOW_HTTP=true
ENV
}

upload() {
  local code
  [ -n "${AZURE_STORAGE_ENDPOINT:-}" ] && [ -n "${AZURE_STORAGE_ACCOUNT_KEY:-}" ] ||
    die "set the variables printed by '$0 start DIR' first"
  code=$(azure_put "$AZURE_STORAGE_ENDPOINT" --tree "$1" "$2")
  [ "$code" = 201 ] || die "upload to $2: HTTP $code"
}

case $cmd in
  start) [ $# -eq 2 ] || usage; mkdir -p "$2"; DIR=$(cd "$2" && pwd); start ;;
  stop) [ $# -eq 2 ] || usage; mkdir -p "$2"; DIR=$(cd "$2" && pwd); stop ;;
  upload) [ $# -eq 3 ] || usage; upload "$2" "$3" ;;
  *) usage ;;
esac
