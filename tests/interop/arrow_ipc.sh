#!/usr/bin/env bash
# Arrow IPC stream writer (src/arrow/ipc_writer.c) against the npm apache-arrow
# reader: the unit test tests/unit/arrow/test_ipc_writer.c writes one stream
# per case into a temp dir (DELTAC_IPC_OUT), and arrow_ipc_read.mjs reads them
# back and checks types, metadata, nulls and every value.
#
# usage: bash tests/interop/arrow_ipc.sh [path/to/build/deltac]   (from the repo root)
# The deltac argument only locates the build dir, to reuse its unit-test
# binary; without one the test is compiled here from the sources.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

# shellcheck source=tests/prereq.sh
source tests/prereq.sh
[ -d node_modules/apache-arrow ] || missing "apache-arrow not installed (run scripts/bootstrap.sh or npm ci)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Prefer the binary CMake built next to deltac; otherwise build the test
# ourselves from the few sources it needs, so that this check does not depend
# on the rest of the tree compiling.
bin=""
if [ $# -ge 1 ] && [ -x "$(dirname "$1")/unit_arrow_test_ipc_writer" ]; then
  bin="$(dirname "$1")/unit_arrow_test_ipc_writer"
else
  bin="$tmp/test_ipc_writer"
  "${CC:-cc}" -std=c11 -D_GNU_SOURCE -O1 -g -Iinclude -Isrc -Itests/unit \
    src/util/alloc.c src/util/buf.c src/util/error.c \
    src/arrow/flatbuf.c src/arrow/ipc_writer.c tests/unit/arrow/test_ipc_writer.c \
    -o "$bin"
fi

out="$tmp/streams"
mkdir -p "$out"
if ! DELTAC_IPC_OUT="$out" "$bin" > "$tmp/unit.log" 2>&1; then
  cat "$tmp/unit.log" >&2
  echo "arrow_ipc: the stream-writing test failed" >&2
  exit 1
fi
for name in primitives nested sliced batches; do
  if [ ! -s "$out/$name.arrows" ]; then
    echo "arrow_ipc: $name.arrows was not written" >&2
    exit 1
  fi
done

node tests/interop/arrow_ipc_read.mjs "$out"
