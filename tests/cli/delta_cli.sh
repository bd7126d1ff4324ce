#!/usr/bin/env bash
# The Delta table commands end to end on the shared conformance tables:
# info / schema / files / history, time travel by version and by timestamp,
# checkpoint fallback, and errors (gaps, missing tables, unsupported features).
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
T=$(realpath "${DELTAC_SHARED:-../shared}/conformance/tables")
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# json_field FIELD CMD...: print one field of the command's JSON output.
json_field() { local f=$1; shift; "$@" 2>"$tmp/err" | python3 -c "import json,sys; v=json.load(sys.stdin)[sys.argv[1]]; print(json.dumps(v) if not isinstance(v,str) else v)" "$f"; }
expect_error() { # expect_error SUBSTRING CMD...: status 1 and one stderr line containing SUBSTRING
  local want=$1; shift
  "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 1 ]; then bad "$* exited $rc, wanted 1"; return; fi
  if [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err"; then bad "$*: stderr lacks '$want': $(cat "$tmp/err")"; return; fi
  ok
}

# info: a table with deletion vectors.
dv=$T/kernel-rs.table-with-dv-small
check "dv version" test "$(json_field version "$deltac" info --format json "$dv")" = 1
check "dv records" test "$(json_field num_records "$deltac" info --format json "$dv")" = 8
check "dv deleted" test "$(json_field deleted_rows "$deltac" info --format json "$dv")" = 2
check "dv features" test "$(json_field reader_features "$deltac" info --format json "$dv")" = '["deletionVectors"]'
check "dv time travel" test "$(json_field num_records "$deltac" info --format json --version 0 "$dv")" = 10

# Checkpoint + commits after it; and the same table with its checkpoint destroyed.
cp_t=$T/kernel-rs-golden.checkpoint
check "checkpoint version" test "$(json_field checkpoint_version "$deltac" info --format json "$cp_t")" = 10
files_at_14=$(json_field num_files "$deltac" info --format json "$cp_t")
cp -r "$cp_t" "$tmp/broken-cp"
for f in "$tmp"/broken-cp/_delta_log/*.checkpoint.parquet; do head -c 100 "$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
check "broken checkpoint falls back" test "$(json_field checkpoint_version "$deltac" info --format json "$tmp/broken-cp")" = null
check "same files without checkpoint" test "$(json_field num_files "$deltac" info --format json "$tmp/broken-cp")" = "$files_at_14"

# Time travel by timestamp: commit file modification times decide (no in-commit timestamps).
tt=$tmp/tt; cp -r "$T/delta-golden.time-travel-start-start20-start40" "$tt"
touch -d @1540415658 "$tt/_delta_log/00000000000000000000.json"
touch -d @1540416858 "$tt/_delta_log/00000000000000000001.json"
touch -d @1540418058 "$tt/_delta_log/00000000000000000002.json"
check "ts start" test "$(json_field version "$deltac" info --format json --timestamp 2018-10-24T21:14:18.000Z "$tt")" = 0
check "ts +10min" test "$(json_field version "$deltac" info --format json --timestamp 2018-10-24T21:24:18Z "$tt")" = 0
check "ts +20min" test "$(json_field version "$deltac" info --format json --timestamp '2018-10-24 21:34:18' "$tt")" = 1
check "ts +30min offset" test "$(json_field version "$deltac" info --format json --timestamp 2018-10-24T23:44:18+02:00 "$tt")" = 1
check "ts +40min" test "$(json_field version "$deltac" info --format json --timestamp 2018-10-24T21:54:18Z "$tt")" = 2
expect_error "before the earliest" "$deltac" info --timestamp 2018-10-24T21:00:00Z "$tt"
expect_error "after the latest" "$deltac" info --timestamp 2018-10-25T00:00:00Z "$tt"

# In-commit timestamps decide where enabled.
ict=$T/kernel-rs.table-with-in-commit-timestamps
if [ -d "$ict" ]; then
  v=$(json_field version "$deltac" info --format json "$ict")
  check "ict table opens" test -n "$v"
fi

# Stats only as stats_parsed in the checkpoint: rendered into the same JSON form.
check "stats_parsed" test "$("$deltac" files --format ndjson --limit 1 "$T/kernel-rs.v1-single-part-struct-stats-only" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["num_records"])')" = 1

# schema
check "schema tree" grep -q ' |    |    |-- acb: long (nullable = true)' <("$deltac" schema "$T/kernel-rs-golden.data-reader-nested-struct")
check "schema json" python3 -c "import json,sys; assert json.load(sys.stdin)['type']=='struct'" < <("$deltac" schema --format json "$T/kernel-rs-golden.data-reader-nested-struct")

# files: partition values and records per file.
"$deltac" files --format ndjson "$T/delta-golden.data-reader-partition-values" >"$tmp/files.ndjson" || bad "files exit"
check "files partition values" python3 - "$tmp/files.ndjson" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 3, len(rows)
pv = [r["partition_values"] for r in rows]
assert all(isinstance(p, dict) and "as_int" in p for p in pv), pv
assert any(p["as_string"] is None for p in pv), pv
PY

# history: newest first with operations.
"$deltac" history --format ndjson "$T/delta-golden.deltalog-commit-info" >"$tmp/h.ndjson" || bad "history exit"
check "history" python3 -c "
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
assert rows[0]['version']==0 and rows[0]['operation']=='WRITE' and rows[0]['parameters']=={'test':'test'}, rows[0]" "$tmp/h.ndjson"
check "history limit" test "$("$deltac" history --format ndjson --limit 2 "$cp_t" | wc -l)" = 2

# scan: rows with deletion vectors applied, partition columns, projection, time travel.
check "scan dv rows" test "$("$deltac" scan --format ndjson "$dv" | wc -l)" = 8
check "scan dv v0 rows" test "$("$deltac" scan --format ndjson --version 0 "$dv" | wc -l)" = 10
check "scan columns" python3 -c "
import json,sys
rows=[json.loads(l) for l in sys.stdin]
assert rows and all(list(r)==['as_int','as_string'] for r in rows), rows[:2]" < <("$deltac" scan --format ndjson --columns as_int,as_string "$T/delta-golden.data-reader-partition-values")
check "scan limit" test "$("$deltac" scan --format ndjson --limit 2 "$T/delta-golden.data-reader-partition-values" | wc -l)" = 2
check "scan csv header" grep -q '^as_int' <("$deltac" scan --format csv --columns as_int "$T/delta-golden.data-reader-partition-values")
check "scan ts" test "$("$deltac" scan --format ndjson --timestamp 2018-10-24T21:34:18Z "$tt" | wc -l)" = "$("$deltac" scan --format ndjson --version 1 "$tt" | wc -l)"
if [ -d node_modules/apache-arrow ]; then
  "$deltac" scan --format arrow "$dv" >"$tmp/dv.arrows" || bad "scan arrow exit"
  check "scan arrow" node --input-type=module -e "
import { tableFromIPC } from 'apache-arrow'; import { readFileSync } from 'node:fs';
const t = tableFromIPC(readFileSync('$tmp/dv.arrows')); if (t.numRows !== 8) throw new Error('rows ' + t.numRows);"
fi
expect_error "no column named nope" "$deltac" scan --columns nope "$dv"

# changes: the change data feed.
cdf=$T/kernel-rs.cdf-table-simple
"$deltac" changes --format ndjson --from 0 "$cdf" >"$tmp/cdf.ndjson" || bad "changes exit"
check "changes columns" python3 -c "
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
assert rows and all({'_change_type','_commit_version','_commit_timestamp'} <= set(r) for r in rows)
assert {r['_change_type'] for r in rows} <= {'insert','delete','update_preimage','update_postimage'}
assert [r['_commit_version'] for r in rows] == sorted(r['_commit_version'] for r in rows)" "$tmp/cdf.ndjson"
"$deltac" changes --summary --format ndjson --from 0 "$cdf" >"$tmp/summary.ndjson" || bad "summary exit"
check "changes summary" python3 -c "
import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
full=[json.loads(l) for l in open(sys.argv[2])]
for r in rows:
    for k in ('insert','delete','update_preimage','update_postimage'):
        assert r[k]==sum(1 for f in full if f['_commit_version']==r['version'] and f['_change_type']==k), (r,k)
assert sum(r['insert']+r['delete']+r['update_preimage']+r['update_postimage'] for r in rows)==len(full)" "$tmp/summary.ndjson" "$tmp/cdf.ndjson"
expect_error "after the latest version" "$deltac" changes --from 99 "$cdf"
expect_error "before start version" "$deltac" changes --from 2 --to 1 "$cdf"
expect_error "not enabled" "$deltac" changes --from 0 "$dv"
"$deltac" changes "$cdf" >/dev/null 2>&1; check "changes needs a start" test $? = 2

# Errors.
expect_error "no _delta_log" "$deltac" info "$T/delta-golden.no-delta-log-folder"
expect_error "no commit file for version 1" "$deltac" info "$T/delta-golden.versions-not-contiguous"
expect_error "reader version 99" "$deltac" info "$T/delta-golden.deltalog-invalid-protocol-version"
expect_error "no metaData" "$deltac" info "$T/delta-golden.deltalog-state-reconstruction-without-metadata"
expect_error "no protocol" "$deltac" info "$T/delta-golden.deltalog-state-reconstruction-without-protocol"
expect_error "geospatial" "$deltac" files "$T/kernel-rs.table-with-geo"
expect_error "version 99 does not exist" "$deltac" info --version 99 "$dv"
"$deltac" info --timestamp yesterday "$dv" >/dev/null 2>&1; check "bad timestamp is a usage error" test $? = 2
expect_error "no _delta_log" "$deltac" schema /nonexistent/table/path

# Per-command help: every command in `deltac help` answers `deltac CMD --help`
# and `deltac help CMD` with its own entry (status 0), naming itself first.
cmds=$("$deltac" help | awk '/^  [a-z]/ && $1 != "help" && $1 != "parquet" { print $1 }' | sort -u)
check "help lists commands" test "$(echo "$cmds" | wc -l)" -ge 18
for c in $cmds; do
  out=$("$deltac" "$c" --help 2>&1); rc=$?
  check "$c --help status" test $rc = 0
  check "$c --help names it" test "$(echo "$out" | head -1 | cut -d' ' -f1-3)" = "usage: deltac $c"
  check "help $c = $c --help" test "$("$deltac" help "$c")" = "$out"
done
check "help merge has its clauses" bash -c "'$deltac' merge -h | grep -q -- --when-not-matched-by-source-delete"
check "help scan lists formats" bash -c "'$deltac' scan --help | grep -q '^--format: table, csv'"
check "help vacuum: no general formats" bash -c "! '$deltac' vacuum --help | grep -q '^--format:'"
check "parquet cat --help" test "$("$deltac" parquet cat --help | head -1 | cut -d' ' -f1-4)" = "usage: deltac parquet cat"
check "help parquet: every sub-command" test "$("$deltac" help parquet | grep -c '^usage: deltac parquet')" = 5
"$deltac" help frobnicate >/dev/null 2>"$tmp/err"; check "help of no command is a usage error" test $? = 2
check "help of no command says so" grep -q "no such command" "$tmp/err"
# After "--", --help is an argument, not a request for help.
"$deltac" info -- --help >/dev/null 2>&1; check "-- --help is a table path" test $? = 1

echo "delta_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
