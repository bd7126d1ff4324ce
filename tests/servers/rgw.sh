#!/usr/bin/env bash
# A throwaway Ceph radosgw (S3) on 127.0.0.1: one mon, one memstore OSD and
# radosgw, everything (config, data, logs, pid files, sockets) under DIR.
#
#   tests/servers/rgw.sh start DIR   start, wait until ready, create a user and
#                                    the bucket "deltac", then print
#                                    `export AWS_...=...` lines for a shell to eval
#   tests/servers/rgw.sh stop DIR    stop every daemon by its pid file
#
# Needs the Debian 12 packages radosgw, ceph-mon and ceph-osd (see
# scripts/bootstrap.sh) and curl >= 7.75 (--aws-sigv4). Takes ~15 s to start.
# The settings that matter are explained in ../shared/docs/SERVERS.md; the
# main one: radosgw only authenticates to the mon with the crc messenger
# modes, even with cephx off.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
CONF=$DIR/ceph.conf
ACCESS_KEY=deltacaccesskey
SECRET_KEY=deltacsecretkey0123456789
REGION=us-east-1

log() { echo "rgw.sh: $*" >&2; }
die() { log "$*"; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Stop the daemon whose pid file is $1, waiting until it is gone.
stop_pid() {
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

stop() {
  # radosgw first, the mon last: the others report to it while stopping.
  stop_pid "$DIR/run/client.rgw.a.pid"
  stop_pid "$DIR/run/osd.0.pid"
  stop_pid "$DIR/run/mon.a.pid"
}

start() {
  for b in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph-authtool ceph curl python3; do
    command -v "$b" >/dev/null || die "missing $b (bash scripts/bootstrap.sh installs it)"
  done
  [ -f "$DIR/run/mon.a.pid" ] && die "$DIR already holds a running cluster (stop it first)"
  rm -rf "$DIR/mon" "$DIR/osd" "$DIR/run" "$DIR/log" "$DIR/rgw"
  mkdir -p "$DIR/mon" "$DIR/osd/ceph-0" "$DIR/run" "$DIR/log" "$DIR/rgw"
  local mon_port rgw_port fsid
  mon_port=$(free_port)
  rgw_port=$(free_port)
  fsid=$(python3 -c 'import uuid; print(uuid.uuid4())')
  cat >"$CONF" <<CONF
[global]
fsid = $fsid
mon host = 127.0.0.1:$mon_port
public network = 127.0.0.0/8
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
ms client mode = crc
ms mon service mode = crc
ms service mode = crc
ms mon cluster mode = crc
ms cluster mode = crc
osd objectstore = memstore
memstore device bytes = 4294967296
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd crush update on start = false
osd class update on start = false
run dir = $DIR/run
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
log file = $DIR/log/\$name.log
mon data = $DIR/mon/\$cluster-\$id
osd data = $DIR/osd/\$cluster-\$id
keyring = $DIR/keyring
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $DIR/rgw
CONF
  # If anything below fails, leave nothing running.
  trap 'stop; log "start failed; logs are in $DIR/log"' ERR
  monmaptool --create --add a "127.0.0.1:$mon_port" --fsid "$fsid" "$DIR/monmap" >/dev/null 2>&1
  ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring" >/dev/null 2>&1
  ceph-mon -c "$CONF" -i a 2>>"$DIR/log/daemons.stderr"
  local osd_id
  osd_id=$(timeout 60 ceph -c "$CONF" osd create 2>/dev/null)
  [ "$osd_id" = 0 ] || die "ceph osd create gave '$osd_id', not 0"
  ceph-osd -c "$CONF" -i 0 --mkfs >/dev/null 2>&1
  ceph-osd -c "$CONF" -i 0 2>>"$DIR/log/daemons.stderr"
  timeout 60 ceph -c "$CONF" osd crush add osd.0 1.0 root=default host=localhost >/dev/null 2>&1
  local up=0
  for _ in $(seq 1 120); do
    if timeout 10 ceph -c "$CONF" osd stat 2>/dev/null | grep -q "1 up"; then up=1; break; fi
    sleep 0.5
  done
  [ "$up" = 1 ] || die "osd.0 did not come up"
  radosgw -c "$CONF" -n client.rgw.a 2>>"$DIR/log/daemons.stderr"
  local ready=0
  for _ in $(seq 1 240); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$rgw_port/" 2>/dev/null)" = 200 ]; then
      ready=1; break
    fi
    sleep 0.5
  done
  [ "$ready" = 1 ] || die "radosgw did not answer on 127.0.0.1:$rgw_port"
  radosgw-admin -c "$CONF" -n client.rgw.a user create --uid deltac --display-name deltac \
    --access-key "$ACCESS_KEY" --secret "$SECRET_KEY" >/dev/null 2>&1
  # The bucket: a signed PUT (curl's own SigV4; rgw wants the payload hash
  # header, and UNSIGNED-PAYLOAD is accepted).
  local code
  code=$(curl -s -o "$DIR/log/mkbucket.out" -w '%{http_code}' -X PUT \
    --aws-sigv4 "aws:amz:$REGION:s3" --user "$ACCESS_KEY:$SECRET_KEY" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "http://127.0.0.1:$rgw_port/deltac")
  [ "$code" = 200 ] || die "creating bucket deltac: HTTP $code"
  trap - ERR
  cat <<ENV
export AWS_ENDPOINT_URL=http://127.0.0.1:$rgw_port
export AWS_ACCESS_KEY_ID=$ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$SECRET_KEY
export AWS_REGION=$REGION
export AWS_ALLOW_HTTP=true
ENV
}

case $cmd in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
