#!/usr/bin/env bash
# The shared conformance tables written again by deltac (plain and with
# column mapping + a checkpoint per commit) must give the cases' expected
# rows: see write_roundtrip.py.
set -euo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
exec python3 tests/conformance/write_roundtrip.py "$deltac" "${DELTAC_SHARED:-../shared}"
