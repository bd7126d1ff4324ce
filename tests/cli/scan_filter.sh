#!/usr/bin/env bash
# `deltac scan --filter` and `deltac changes --filter`: the rows, and what
# --stats says was skipped — partition pruning, file statistics (also with
# column mapping and deletion vectors), row-group statistics, columns
# without statistics — plus the errors a bad filter gets.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

# scan_case TABLE FILTER ROWS 'KEY=VALUE ...': the row count and --stats fields.
run_case() {
  local cmd=$1 table=$2 filter=$3 rows=$4 stats=$5
  if [ "$cmd" = scan ]; then
    "$deltac" scan --format ndjson --stats --filter "$filter" "$T/$table" >"$tmp/out" 2>"$tmp/err"
  else
    "$deltac" changes --from 0 --format ndjson --stats --filter "$filter" "$T/$table" >"$tmp/out" 2>"$tmp/err"
  fi
  local rc=$?
  if [ $rc -ne 0 ]; then bad "$table '$filter': exit $rc: $(cat "$tmp/err")"; return; fi
  local got; got=$(wc -l <"$tmp/out")
  if [ "$got" -ne "$rows" ]; then bad "$table '$filter': $got rows, expected $rows"; return; fi
  for kv in $stats; do
    local k=${kv%%=*} v=${kv#*=} have
    have=$(python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).read())[sys.argv[2]])" "$tmp/err" "$k")
    if [ "$have" != "$v" ]; then bad "$table '$filter': $k=$have, expected $v"; return; fi
  done
  ok
}
scan_case() { run_case scan "$@"; }
changes_case() { run_case changes "$@"; }

# Partition pruning: 3 files, one per partition value; nulls are a partition too.
pv=delta-golden.data-reader-partition-values
scan_case $pv "as_int = 0" 1 "files_total=3 files_skipped=2 rows_returned=1"
scan_case $pv "as_int IS NULL" 1 "files_skipped=2"
scan_case $pv "as_string_lit_null = 'null'" 2 "files_skipped=1"
scan_case $pv "as_date >= DATE '2021-09-08' AND as_boolean" 1 "files_skipped=2"
scan_case $pv "as_big_decimal IN (1, 2)" 1 "files_skipped=2"
scan_case $pv "NOT as_int = 0" 1 "files_skipped=2"   # the null partition is not NOT 0
# Row groups: nested fields have no file statistics here, row groups do.
scan_case $pv "as_nested_struct.ac.aca = 2" 1 "files_skipped=0 row_groups_total=3 row_groups_skipped=2"
# File statistics of every type, also under column mapping (physical names in stats).
st=delta-golden.data-skipping-basic-stats-all-types
scan_case $st "as_int = 1" 0 "files_skipped=1"
scan_case $st "as_string > '0'" 0 "files_skipped=1"
scan_case $st "as_date > '2000-01-01'" 0 "files_skipped=1"
scan_case $st "as_big_decimal = 1" 0 "files_skipped=1"
scan_case $st "as_int IS NULL" 0 "files_skipped=1"
scan_case $st "as_int = 0 AND as_long = 0" 1 "files_skipped=0 rows_returned=1"
# Timestamp statistics have millisecond precision: the max cannot rule out
# a later microsecond, so this reads the file and filters the row out.
scan_case $st "as_timestamp > '2000-01-01 08:00:00'" 0 "files_skipped=0 rows_read=1"
scan_case delta-golden.data-skipping-basic-stats-all-types-columnmapping-name "as_int = 1" 0 "files_skipped=1"
scan_case delta-golden.data-skipping-basic-stats-all-types-columnmapping-id "as_long = 1" 0 "files_skipped=1"
scan_case delta-golden.data-skipping-basic-stats-all-types-columnmapping-id "as_long = 0" 1 "files_skipped=0"
# Partition and data columns together; deletion vectors with a checkpoint.
scan_case delta-golden.data-skipping-partition-and-data-column "part = 1 AND id = 11" 0 "files_total=4 files_skipped=4"
scan_case delta-golden.dv-partitioned-with-checkpoint "part = 8 AND col1 > 40" 1 "files_total=15 files_skipped=14 rows_read=3"
scan_case kernel-rs.table-with-dv-small "value > 5" 3 "files_skipped=0 rows_read=10 rows_returned=3"
scan_case kernel-rs.table-with-dv-small "value = 0" 0 "rows_returned=0"   # deleted rows never match
# No statistics at all: nothing skipped by files, rows still filtered.
scan_case delta-golden.124-decimal-decode-bug "large_decimal = 1000000" 1 "files_skipped=0"
# A filter column outside --columns is read for the filter, not returned.
"$deltac" scan --format ndjson --columns col2 --filter "col1 = 48" "$T/delta-golden.dv-partitioned-with-checkpoint" >"$tmp/out" 2>&1
if [ "$(cat "$tmp/out")" = '{"col2":"foo3"}' ]; then ok; else bad "projection with filter column: $(cat "$tmp/out")"; fi

# Change feed: the change columns prune files and filter rows; commits the
# version (or a file-time timestamp) rules out are not even read, so their
# files are not counted.
cdf=delta-rs.cdf-table
changes_case $cdf "_change_type = 'delete'" 1 "files_total=23 files_skipped=10 rows_returned=1"
changes_case $cdf "_commit_version = 2" 6 "files_total=6 files_skipped=0"
changes_case $cdf "_commit_version >= 3 AND _change_type != 'insert'" 1 "files_total=1"
changes_case $cdf "_commit_timestamp < TIMESTAMP '1970-01-02'" 0 "files_total=0"
changes_case $cdf "NOT _commit_version != 1 OR _commit_version = 3" 7 "files_total=7"
changes_case $cdf "id > 5 AND _change_type = 'insert'" 5 ""

# Bad filters: one line, exit 1.
expect_error "filter: no column named nope" scan --filter "nope = 1" "$T/$st"
expect_error "unterminated string" scan --filter "as_string = 'x" "$T/$st"
expect_error "cannot compare as_string (string) with integer" scan --filter "as_string = 1" "$T/$st"
expect_error "is not a valid date for column as_date" scan --filter "as_date = 'yesterday'" "$T/$st"
expect_error "filter: no column named nope" changes --from 0 --filter "nope = 1" "$T/$cdf"

finish scan_filter
