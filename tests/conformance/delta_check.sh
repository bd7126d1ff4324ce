#!/usr/bin/env bash
# The shared Delta conformance cases (../shared/conformance) through the CLI,
# with the tracked list of cases deltac cannot pass yet. That list only shrinks.
set -euo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
shared=${DELTAC_SHARED:-../shared}
python3 "$shared/conformance/check.py" --deltac "$deltac" -j 2 \
  --expect-fail tests/conformance/expected-failures.txt
