#!/usr/bin/env bash
# A throwaway Google Cloud Storage test server (tests/servers/gcs_server.py)
# on 127.0.0.1, with a fresh RSA service-account key, everything under DIR.
#
#   tests/servers/gcs.sh start DIR   generate the key, start the server, wait
#                                    until it answers, then print `export ...`
#                                    lines for a shell to eval: the endpoint
#                                    (STORAGE_EMULATOR_HOST), the key file
#                                    (GOOGLE_APPLICATION_CREDENTIALS), a static
#                                    bearer token (GCS_TEST_BEARER_TOKEN) and
#                                    the control URL (GCS_TEST_CONTROL); the
#                                    bucket "deltac" is there.
#   tests/servers/gcs.sh stop DIR    stop the server by its pid file
#
# Needs python3 and the openssl command (Debian's openssl). Starts in < 1 s.
# GCS_TEST_PAGE_SIZE (default 5) caps listing pages so that pagination is
# always exercised.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)

log() { echo "gcs.sh: $*" >&2; }
die() { log "$*"; exit 1; }

stop() {
  local f=$DIR/gcs.pid pid
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
  command -v python3 >/dev/null || die "python3 is missing"
  command -v openssl >/dev/null || die "openssl is missing (apt-get install openssl)"
  if [ -f "$DIR/gcs.pid" ] && kill -0 "$(cat "$DIR/gcs.pid")" 2>/dev/null; then
    die "$DIR already holds a running server (stop it first)"
  fi
  rm -f "$DIR/port"
  (umask 077 && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$DIR/key.pem" 2>/dev/null) \
    || die "openssl genpkey failed"
  local bearer
  bearer=test-bearer-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  python3 "$HERE/gcs_server.py" --private-key "$DIR/key.pem" --credentials-out "$DIR/sa.json" \
    --port-file "$DIR/port" --bearer "$bearer" --bucket deltac --page-size "${GCS_TEST_PAGE_SIZE:-5}" \
    >"$DIR/server.log" 2>&1 &
  echo $! >"$DIR/gcs.pid"
  for _ in $(seq 1 100); do
    [ -s "$DIR/port" ] && break
    kill -0 "$(cat "$DIR/gcs.pid")" 2>/dev/null || die "the server exited: $(tail -3 "$DIR/server.log")"
    sleep 0.05
  done
  [ -s "$DIR/port" ] || { stop; die "the server did not start"; }
  local port
  port=$(cat "$DIR/port")
  echo "export STORAGE_EMULATOR_HOST=http://127.0.0.1:$port"
  echo "export GOOGLE_APPLICATION_CREDENTIALS=$DIR/sa.json"
  echo "export GCS_TEST_BEARER_TOKEN=$bearer"
  echo "export GCS_TEST_CONTROL=http://127.0.0.1:$port"
}

case $cmd in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
