#!/usr/bin/env bash
# deltac info --stats on local tables: one "storage: ..." line on stderr
# after the output, with exactly one listing of _delta_log for a table with
# a checkpoint (the listing starts at the checkpoint) and for one without,
# nothing written or deleted, and no such line without --stats.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
T=$(realpath "${DELTAC_SHARED:-../shared}/conformance/tables")
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # TABLE: info --stats prints the table and one well-formed stats line with one listing
  local t=$1
  if ! "$deltac" info --stats "$t" >"$tmp/out" 2>"$tmp/err"; then bad "info --stats $t: $(cat "$tmp/err")"; return; fi
  grep -q '^version:' "$tmp/out" || bad "info --stats $t printed no table info"
  if [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
     grep -Eq '^storage: list 1 req, get [1-9][0-9]* req [0-9.]+ (B|KiB|MiB), head (0|[0-9]+ req), put 0, delete 0, retries 0$' "$tmp/err"; then ok
  else bad "info --stats $t: unexpected stats line: $(cat "$tmp/err")"; fi
}
check "$T/delta-golden.checkpoint"
check "$T/delta-golden.hive.deltatbl-special-chars-in-partition-column"

# The checkpointed table: commits 11-14 follow checkpoint 10, so the log
# reads at most _last_checkpoint and those four commits (and their .crc).
"$deltac" info --stats "$T/delta-golden.checkpoint" >/dev/null 2>"$tmp/err"
g=$(sed -nE 's/.*get ([0-9]+) req.*/\1/p' "$tmp/err")
if [ -n "$g" ] && [ "$g" -ge 5 ] && [ "$g" -le 16 ]; then ok; else bad "checkpointed table: $g gets: $(cat "$tmp/err")"; fi

# Without --stats: no stats line.
"$deltac" info "$T/delta-golden.checkpoint" >/dev/null 2>"$tmp/err"
if [ ! -s "$tmp/err" ]; then ok; else bad "info without --stats wrote to stderr: $(cat "$tmp/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
