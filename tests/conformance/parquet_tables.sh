#!/usr/bin/env bash
# Every Parquet file (data files and checkpoints) of the Delta conformance
# tables must decode completely with `deltac parquet cat`. The files that are
# broken on purpose are listed in parquet_tables_broken.txt and must fail
# cleanly: non-zero exit, one line on stderr, no crash.
set -uo pipefail
deltac=${1:-build/deltac}
here=$(cd "$(dirname "$0")" && pwd)
tables=${DELTAC_SHARED:-$here/../../../shared}/conformance/tables
[ -d "$tables" ] || { echo "conformance tables not found at $tables"; exit 1; }
broken_list=$here/parquet_tables_broken.txt
pass=0 fail=0
while IFS= read -r -d '' f; do
  rel=${f#"$tables"/}
  expect_fail=0
  if [ -f "$broken_list" ] && grep -qxF "$rel" "$broken_list"; then expect_fail=1; fi
  err=$("$deltac" parquet cat --format ndjson "$f" 2>&1 >/dev/null)
  rc=$?
  if [ $rc -ge 128 ]; then
    echo "FAIL $rel: crashed (status $rc)"; fail=$((fail+1)); continue
  fi
  if [ $expect_fail = 1 ]; then
    if [ $rc -ne 0 ] && [ -n "$err" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then
      pass=$((pass+1))
    else
      echo "FAIL $rel: expected a one-line error, got status $rc: $err"; fail=$((fail+1))
    fi
  elif [ $rc -eq 0 ]; then
    pass=$((pass+1))
  else
    echo "FAIL $rel: $err"; fail=$((fail+1))
  fi
done < <(find "$tables" -name '*.parquet' -type f -print0 | sort -z)
echo "parquet_tables: $pass passed, $fail failed"
[ $fail -eq 0 ]
