#!/usr/bin/env bash
# Interop test: DELETE, UPDATE and MERGE x {copy-on-write, deletion vectors}
# x {partitioned, not} x {change data feed on, off}: after each operation the
# table's rows (`deltac scan`) equal what DuckDB computes running the same
# statement over the same input, and the change feed of that version
# (`deltac changes`) equals the change rows derived from DuckDB's before and
# after. ctest runs it from the repo root as:
#   bash tests/interop/dml_matrix.sh build/deltac
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DELTAC="${1:?usage: dml_matrix.sh /path/to/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/node_modules/@duckdb/node-api" ]; then
  echo "dml_matrix: node or @duckdb/node-api missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
cd "$ROOT"
exec node tests/interop/dml_matrix.mjs --deltac "$DELTAC"
