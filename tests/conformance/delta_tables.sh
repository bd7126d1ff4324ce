#!/usr/bin/env bash
# Every table of the shared Delta conformance corpus either opens (info,
# schema, files, history all succeed) or is refused with one clear line.
# The refused tables and the reason each must give are in
# delta_tables_refused.txt ("table<TAB>text the error must contain").
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
here=$(cd "$(dirname "$0")" && pwd)
tables=$(realpath "${DELTAC_SHARED:-$here/../../../shared}/conformance/tables")
refused=$here/delta_tables_refused.txt
pass=0 fail=0
for d in "$tables"/*/; do
  t=$(basename "$d")
  want=$(awk -F'\t' -v t="$t" '$1 == t { print $2 }' "$refused")
  for cmd in "info --format json" "schema" "files --format ndjson" "history --format ndjson --limit 5"; do
    # shellcheck disable=SC2086
    err=$("$deltac" $cmd "$d" 2>&1 >/dev/null); rc=$?
    if [ $rc -ge 128 ]; then echo "FAIL $t ($cmd): crashed, status $rc"; fail=$((fail+1)); continue; fi
    case "$cmd" in history*) [ -z "$want" ] || continue ;; esac  # history needs no snapshot
    if [ -n "$want" ]; then
      if [ $rc -eq 1 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s' "$err" | grep -qF -- "$want"; then
        pass=$((pass+1))
      else
        echo "FAIL $t ($cmd): expected a refusal containing '$want', got status $rc: $err"; fail=$((fail+1))
      fi
    elif [ $rc -eq 0 ]; then
      pass=$((pass+1))
    else
      echo "FAIL $t ($cmd): $err"; fail=$((fail+1))
    fi
  done
done
echo "delta_tables: $pass passed, $fail failed"
[ $fail -eq 0 ]
