#!/usr/bin/env bash
# Differential test: deltac's Parquet reader against DuckDB on generated files.
# ctest runs it from the repo root as: bash tests/interop/duckdb_diff.sh build/deltac
# Extra arguments go to duckdb_diff.mjs (e.g. --only 'decimal' --keep /tmp/dd).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DELTAC="${1:?usage: duckdb_diff.sh /path/to/deltac [duckdb_diff.mjs options]}"
shift
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac

if ! command -v node >/dev/null 2>&1; then
  echo "duckdb_diff: node is not installed; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
if [ ! -d "$ROOT/node_modules/@duckdb/node-api" ]; then
  echo "duckdb_diff: $ROOT/node_modules/@duckdb/node-api is missing; run: bash scripts/bootstrap.sh (npm ci)" >&2
  exit 1
fi
if [ ! -x "$DELTAC" ]; then
  echo "duckdb_diff: deltac binary not found at $DELTAC; run: make build" >&2
  exit 1
fi
cd "$ROOT"
# A larger young generation halves the run time (GC-heavy value trees).
exec node --max-semi-space-size=64 tests/interop/duckdb_diff.mjs --deltac "$DELTAC" "$@"
