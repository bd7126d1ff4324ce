#!/usr/bin/env bash
# Interop test: DuckDB reads the data files and the checkpoint of tables
# deltac writes (plain, partitioned, column-mapped) and sees what deltac's
# own reader sees. ctest runs it from the repo root as:
#   bash tests/interop/write_duckdb.sh build/deltac
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DELTAC="${1:?usage: write_duckdb.sh /path/to/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/node_modules/@duckdb/node-api" ]; then
  echo "write_duckdb: node or @duckdb/node-api missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
cd "$ROOT"
exec node tests/interop/write_duckdb.mjs --deltac "$DELTAC"
