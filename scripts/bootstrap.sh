#!/usr/bin/env bash
# Installs every build and test dependency of deltac on a Debian 12 machine.
#
#   bash scripts/bootstrap.sh          (as root, or with sudo available)
#   bash scripts/bootstrap.sh --bench  (also what only `make bench` uses: wrk)
#
# Idempotent and quick when everything is present: it then touches no network
# and prints "bootstrap: nothing to do". Works unattended (CI=true, no stdin).
#
#  1. Debian packages: compilers, CMake, the Parquet codec libraries, clang
#     (libFuzzer + sanitizers), valgrind, GNU time (bench peak RSS), python3
#     (conformance runner), node + npm (DuckDB differential tests and bench),
#     libmicrohttpd + nettle (deltac serve: HTTP, HMAC-SHA256 signed links),
#     curl (server tests), libcurl (the object-store back ends), openssl (the
#     GCS test server makes and checks its RSA key), radosgw + ceph-mon +
#     ceph-osd (a local S3 server for tests/storage, tests/servers/rgw.sh)
#     and chromium (the web page's headless-browser test,
#     driven by npm playwright-core). With --bench: wrk (server load test).
#     `apt-get update` runs only when a package is missing.
#  2. Test-only npm packages from the committed package.json/package-lock.json
#     (`npm ci`), skipped when node_modules/.deltac-lock-hash matches the lock.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf 'bootstrap: %s\n' "$*"; }
did_something=0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; fi
fi

# ---------------------------------------------------------------- apt packages
# libclang-rt-dev: clang's sanitizer and libFuzzer runtimes (only recommended
# by clang, and recommends are not installed). time: GNU time for bench RSS.
APT_PACKAGES=(
  build-essential cmake pkg-config
  libzstd-dev libsnappy-dev liblz4-dev libbrotli-dev zlib1g-dev libjsmn-dev libroaring-dev
  clang libclang-rt-dev
  python3 valgrind time git ca-certificates
  libmicrohttpd-dev nettle-dev curl chromium
  libcurl4-openssl-dev openssl
  radosgw ceph-mon ceph-osd
)
[ "${1:-}" = "--bench" ] && APT_PACKAGES+=(wrk)

# One dpkg-query call for all packages keeps the no-op run fast.
installed="$({ dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${APT_PACKAGES[@]}" 2>/dev/null || true; } \
  | awk '$2 == "installed" { print $1 }' | sed 's/:.*//')"
missing=()
for p in "${APT_PACKAGES[@]}"; do
  grep -qx "$p" <<<"$installed" || missing+=("$p")
done
# Node.js: any node >= 18 with npm will do. CI images may ship NodeSource's
# nodejs, which bundles npm and conflicts with Debian's separate npm package,
# so the Debian packages are only asked for when the commands are missing.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ "${#missing[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q </dev/null
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
  did_something=1
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  log "error: node/npm still missing after apt-get install" >&2
  exit 1
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 18 ]; then
  log "error: Node.js >= 18 is needed for @duckdb/node-api, found $(node --version)" >&2
  exit 1
fi

# --------------------------------------------------------------- npm packages
# Test-only: @duckdb/node-api (differential tests, benchmark peer),
# apache-arrow and playwright-core (drives chromium in the browser test; it
# downloads no browser). Nothing here is linked into deltac.
lock_hash="$(sha256sum package-lock.json | cut -d' ' -f1)-node${node_major}"
stamp="node_modules/.deltac-lock-hash"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$lock_hash" ] \
   && [ -d node_modules/@duckdb/node-api ] && [ -d node_modules/apache-arrow ] && [ -d node_modules/playwright-core ]; then
  :
else
  log "installing npm test packages (npm ci)"
  CI=true npm ci --no-audit --no-fund --loglevel=error </dev/null
  # Loading the native binding proves the platform package was installed.
  node -e "require('@duckdb/node-api')" \
    || { log "error: @duckdb/node-api does not load" >&2; exit 1; }
  printf '%s\n' "$lock_hash" >"$stamp"
  did_something=1
fi

if [ "$did_something" -eq 0 ]; then
  log "nothing to do (all dependencies present)"
else
  log "done"
fi
