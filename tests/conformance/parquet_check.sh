#!/usr/bin/env bash
# The shared Parquet corpus (../shared/parquet) through `deltac parquet cat`.
set -euo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
shared=${DELTAC_SHARED:-../shared}
python3 "$shared/parquet/check.py" --deltac "$deltac" -j 2
