#!/usr/bin/env bash
# Interop test: decimal, date and timestamp arithmetic in UPDATE SET gives
# the table DuckDB computes for the same statements (details and the cases
# left out in dml_arith_duckdb.mjs). ctest runs it from the repo root as:
#   bash tests/interop/dml_arith_duckdb.sh build/deltac
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DELTAC="${1:?usage: dml_arith_duckdb.sh /path/to/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/node_modules/@duckdb/node-api" ]; then
  echo "dml_arith_duckdb: node or @duckdb/node-api missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
cd "$ROOT"
exec node tests/interop/dml_arith_duckdb.mjs --deltac "$DELTAC"
