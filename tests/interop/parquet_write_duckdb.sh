#!/usr/bin/env bash
# Differential test: files written by deltac's Parquet writer read back by DuckDB.
# ctest runs it from the repo root as: bash tests/interop/parquet_write_duckdb.sh build/deltac
# Extra arguments go to parquet_write_duckdb.mjs (e.g. --only 'map' --keep /tmp/pw).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DELTAC="${1:?usage: parquet_write_duckdb.sh /path/to/deltac [options]}"
shift
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac

if ! command -v node >/dev/null 2>&1; then
  echo "parquet_write_duckdb: node is not installed; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
if [ ! -d "$ROOT/node_modules/@duckdb/node-api" ]; then
  echo "parquet_write_duckdb: $ROOT/node_modules/@duckdb/node-api is missing; run: bash scripts/bootstrap.sh (npm ci)" >&2
  exit 1
fi
if [ ! -x "$DELTAC" ]; then
  echo "parquet_write_duckdb: deltac binary not found at $DELTAC; run: make build" >&2
  exit 1
fi
cd "$ROOT"
exec node tests/interop/parquet_write_duckdb.mjs --deltac "$DELTAC" "$@"
