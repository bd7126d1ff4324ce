#!/usr/bin/env bash
# The layers of docs/DESIGN.md on the #include lines of src/: no include
# circles among folders, no folder including a higher layer, operations not
# including each other (tests/layout/includes.py; its output says where).
# $1 (the deltac binary, as every script test gets) is not needed.
set -uo pipefail
cd "$(dirname "$0")/../.."
if ! python3 tests/layout/includes.py; then
  echo "FAIL: layering problems in src/ (see above; docs/internals/conventions.md, 'Where code goes')"
  exit 1
fi
