#!/usr/bin/env bash
# Interop test: a clustered table with row tracking, after appends, UPDATE,
# MERGE, DELETE and OPTIMIZE: DuckDB reads its data files (hidden
# materialized columns and row positions) and the row ids derived from them
# by the spec equal `deltac scan --row-tracking`. ctest runs it as:
#   bash tests/interop/row_tracking_duckdb.sh build/deltac
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DELTAC="${1:?usage: row_tracking_duckdb.sh /path/to/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/node_modules/@duckdb/node-api" ]; then
  echo "row_tracking_duckdb: node or @duckdb/node-api missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
cd "$ROOT"
exec node tests/interop/row_tracking_duckdb.mjs --deltac "$DELTAC"
