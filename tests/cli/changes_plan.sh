#!/usr/bin/env bash
# deltac changes --plan: one NDJSON line per file task of the change feed,
# on the shared conformance tables: each rule (add/remove rows, cdc files,
# deletion-vector differences), dataChange=false, partition values, range
# errors reported before any line, and the plan agreeing with the rows.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
T=$(realpath "${DELTAC_SHARED:-../shared}/conformance/tables")
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
expect_error() { # expect_error SUBSTRING CMD...: status 1, nothing on stdout, one stderr line containing SUBSTRING
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 1 ]; then bad "$* exited $rc, wanted 1"; return; fi
  if [ -s "$tmp/out" ]; then bad "$*: printed plan lines before the error"; return; fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err"; then bad "$*: stderr lacks '$want': $(cat "$tmp/err")"; return; fi
  ok
}
# plan_check TABLE ARGS -- PYTHON: run the plan, then PYTHON over `lines` (the parsed objects).
plan_check() {
  local what=$1 table=$2; shift 2
  local args=(); while [ "$1" != "--" ]; do args+=("$1"); shift; done; shift
  if ! "$deltac" changes --plan "${args[@]}" "$table" >"$tmp/plan.ndjson" 2>"$tmp/err"; then
    bad "$what: exit $? $(cat "$tmp/err")"; return
  fi
  check "$what" python3 -c "
import json, sys
lines = [json.loads(l) for l in open('$tmp/plan.ndjson')]
keys = ['version', 'commit_timestamp', 'commit_timestamp_ms', 'path', 'size', 'partition_values', 'rows', 'change_type', 'dv', 'dv2']
assert all(list(l) == keys for l in lines), 'keys'
assert [l['version'] for l in lines] == sorted(l['version'] for l in lines), 'version order'
$1"
}

# Deletion vectors re-added in one commit: both differences, old and new DV swapped; inline and file DVs.
plan_check "dv diff" "$T/kernel-rs.cdf-table-with-dv" --from 0 -- "
v4 = [l for l in lines if l['version'] == 4]
assert len(lines) == 9, len(lines)
assert lines[0]['rows'] == 'live' and lines[0]['change_type'] == 'insert' and lines[0]['dv'] is None
assert [l['change_type'] for l in v4] == ['insert', 'delete'], v4
assert all(l['rows'] == 'dv_diff' for l in v4)
assert v4[0]['dv'] == v4[1]['dv2'] and v4[0]['dv2'] == v4[1]['dv'], 'swapped DVs'
assert v4[0]['dv']['storageType'] == 'i' and lines[1]['dv']['storageType'] == 'u', 'inline and file DVs'
assert lines[1]['dv']['offset'] == 1 and lines[1]['dv']['cardinality'] == 2
"
# cdc files win over the commit's adds and removes; their change type comes from the file.
plan_check "cdc priority" "$T/delta-rs.cdf-table-with-cdc-and-dvs" --from 0 -- "
cdc = [l for l in lines if l['rows'] == 'cdc']
assert cdc and all(l['change_type'] is None and l['path'].startswith('_change_data/') for l in cdc)
for v in {l['version'] for l in cdc}:
    assert all(l['rows'] == 'cdc' for l in lines if l['version'] == v), v
"
# dataChange=false (OPTIMIZE at version 1) gives no task.
plan_check "dataChange=false" "$T/kernel-rs.cdf-table-data-change" --from 0 -- "
assert [l['version'] for l in lines] == [0, 0], lines
"
# Partition values and sizes come from the log.
plan_check "partitions" "$T/kernel-rs.cdf-table-partitioned" --from 0 --to 2 -- "
assert all(set(l['partition_values']) == {'part'} for l in lines)
assert all(isinstance(l['size'], int) and l['size'] > 0 for l in lines)
assert [l['rows'] for l in lines if l['version'] == 2] == ['live', 'live']
assert [l['change_type'] for l in lines if l['version'] == 2] == ['delete', 'delete']
"
# A sub-range: only its versions.
plan_check "sub-range" "$T/kernel-rs.cdf-table-with-dv" --from 2 --to 4 -- "
assert sorted({l['version'] for l in lines}) == [2, 3, 4], lines
"

# The plan and the rows agree: each version with tasks has rows, each with rows has tasks.
cdf=$T/kernel-rs.cdf-table
"$deltac" changes --plan --from 0 "$cdf" >"$tmp/p.ndjson" || bad "plan exit"
"$deltac" changes --summary --format ndjson --from 0 "$cdf" >"$tmp/s.ndjson" || bad "summary exit"
check "plan covers the rows" python3 -c "
import json
plan = {json.loads(l)['version'] for l in open('$tmp/p.ndjson')}
rows = {json.loads(l)['version'] for l in open('$tmp/s.ndjson')}
assert plan == rows, (plan, rows)
"

# Range errors come before any plan line, with the same messages as the rows.
expect_error "after the latest version" "$deltac" changes --plan --from 99 "$cdf"
expect_error "before start version" "$deltac" changes --plan --from 2 --to 1 "$cdf"
expect_error "not enabled at version 0" "$deltac" changes --plan --from 0 "$T/kernel-rs.table-with-dv-small"
# Two timestamps between the same two commits: an empty plan, not an error.
tt=$tmp/tt; cp -r "$cdf" "$tt"
i=0; for f in "$tt"/_delta_log/*.json; do touch -d @$((1700000000 + i * 100)) "$f"; i=$((i+1)); done
"$deltac" changes --plan --from-timestamp 1700000010000 --to-timestamp 1700000020000 "$tt" >"$tmp/empty" 2>"$tmp/err"
check "empty timestamp range" test $? = 0 -a ! -s "$tmp/empty"

echo "changes_plan: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
