#!/usr/bin/env bash
# A test that lacks a prerequisite is never reported as passed: every ctest
# test has SKIP_RETURN_CODE 77; tests/prereq.sh's missing/part_missing and
# tests/unit/test.h's TEST_MISSING end with 77 locally and 1 under CI=true.
#
# usage: bash tests/packaging/skip_codes.sh BUILD_DIR   (from the repo root)
set -uo pipefail
build=$(realpath "${1:-build}")
cd "$(dirname "$0")/../.."
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# status CMD...: the exit status of CMD, output dropped
status() { "$@" >/dev/null 2>&1; echo $?; }

# every registered test, and nothing else, carries SKIP_RETURN_CODE 77
json=$(cd "$build" && ctest --show-only=json-v1)
counts=$(python3 -c '
import json, sys
tests = json.load(sys.stdin)["tests"]
def skip(t):
    return {p["name"]: p["value"] for p in t.get("properties", [])}.get("SKIP_RETURN_CODE")
without = [t["name"] for t in tests if str(skip(t)) != "77"]
print(len(tests), len(without), " ".join(without[:5]))' <<<"$json")
read -r n_tests n_without names <<<"$counts"
if [ "${n_tests:-0}" -gt 50 ] && [ "$n_without" = 0 ]; then ok
else bad "$n_tests tests, $n_without without SKIP_RETURN_CODE 77: $names"; fi

# shell tests
t=(env -u CI bash -c 'source tests/prereq.sh; missing "a tool"; exit 0')
[ "$(status "${t[@]}")" = 77 ] && ok || bad "missing: not 77 without CI"
t=(env CI=true bash -c 'source tests/prereq.sh; missing "a tool"; exit 0')
[ "$(status "${t[@]}")" = 1 ] && ok || bad "missing: not 1 under CI=true"
t=(env -u CI bash -c 'source tests/prereq.sh; part_missing "a part"; prereq_status')
[ "$(status "${t[@]}")" = 77 ] && ok || bad "part_missing: not 77 without CI"
t=(env CI=true bash -c 'source tests/prereq.sh; part_missing "a part"; prereq_status')
[ "$(status "${t[@]}")" = 1 ] && ok || bad "part_missing: not 1 under CI=true"
t=(env -u CI bash -c 'source tests/prereq.sh; prereq_status')
[ "$(status "${t[@]}")" = 0 ] && ok || bad "prereq_status: not 0 with nothing missing"

# a C unit test without the deltac binary it needs
bin=$build/unit_dml_test_delete
if [ -x "$bin" ]; then
  [ "$(status env -u CI -u DELTAC_BIN "$bin")" = 77 ] && ok || bad "TEST_MISSING: not 77 without CI"
  [ "$(status env -u DELTAC_BIN CI=true "$bin")" = 1 ] && ok || bad "TEST_MISSING: not 1 under CI=true"
else bad "$bin is not built"; fi

echo "packaging_skip_codes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
