#!/usr/bin/env bash
# Interop test: DuckDB and deltac read the checkpoints deltac writes (V1 with stats_parsed,
# V2 with sidecars); see checkpoint_write_duckdb.mjs.
#   bash tests/interop/checkpoint_write_duckdb.sh build/deltac
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DELTAC="${1:?usage: checkpoint_write_duckdb.sh /path/to/deltac}"
case "$DELTAC" in /*) ;; *) DELTAC="$PWD/$DELTAC" ;; esac
if ! command -v node >/dev/null 2>&1 || [ ! -d "$ROOT/node_modules/@duckdb/node-api" ]; then
  echo "checkpoint_write_duckdb: node or @duckdb/node-api missing; run: bash scripts/bootstrap.sh" >&2
  exit 1
fi
cd "$ROOT"
exec node tests/interop/checkpoint_write_duckdb.mjs --deltac "$DELTAC"
