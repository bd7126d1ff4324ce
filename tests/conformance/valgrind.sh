#!/usr/bin/env bash
# valgrind must find no errors and no leaks in the CLI reading the Parquet
# corpus (all small valid and broken files) and a sample of Delta table files.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
shared=${DELTAC_SHARED:-../shared}
command -v valgrind >/dev/null || { echo "valgrind missing (run scripts/bootstrap.sh)"; exit 1; }
pass=0 fail=0
files=()
while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$shared/parquet/files" -name '*.parquet' -size -120k -print0 | sort -z)
# A spread of Delta data files and checkpoints: the first file of each table, capped.
while IFS= read -r -d '' f; do files+=("$f"); done < <(
  find "$shared/conformance/tables" -name '*.parquet' ! -name '._*' -size -100k -print0 | sort -z |
  awk -v RS='\0' -v ORS='\0' '{ split($0, p, "/tables/"); split(p[2], q, "/"); if (!(q[1] in seen)) { seen[q[1]] = 1; print } }' | head -z -n 30)
for f in "${files[@]}"; do
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
    "$deltac" parquet cat --format ndjson "$f" >/dev/null 2>"${TMPDIR:-/tmp}/vg.$$"
  rc=$?
  if [ $rc -eq 99 ] || [ $rc -ge 128 ]; then
    echo "FAIL $f"; head -20 "${TMPDIR:-/tmp}/vg.$$"; fail=$((fail+1))
  else
    pass=$((pass+1))
  fi
done
# Delta tables: snapshot replay (commits, checkpoints of every shape, DVs)
# through info and files, on a spread of tables.
while IFS= read -r -d '' d; do
  for cmd in "info --format json" "files --format ndjson"; do
    # shellcheck disable=SC2086
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
      "$deltac" $cmd "$d" >/dev/null 2>"${TMPDIR:-/tmp}/vg.$$"
    rc=$?
    if [ $rc -eq 99 ] || [ $rc -ge 128 ]; then
      echo "FAIL $d ($cmd)"; head -20 "${TMPDIR:-/tmp}/vg.$$"; fail=$((fail+1))
    else
      pass=$((pass+1))
    fi
  done
done < <(find "$shared/conformance/tables" -mindepth 1 -maxdepth 1 -type d \
           \( -name '*checkpoint*' -o -name '*dv*' -o -name '*deletion*' -o -name '*partition*' -o -name '*column-mapping*' \) \
           -print0 | sort -z | head -z -n 15)
# Scans, plans and change feeds with filters (parsing, binding, pruning, row
# filtering), also with a filter that fails to bind.
T=$shared/conformance/tables
while IFS='|' read -r args table; do
  # shellcheck disable=SC2086
  eval "set -- $args"
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
    "$deltac" "$@" "$T/$table" >/dev/null 2>"${TMPDIR:-/tmp}/vg.$$"
  rc=$?
  if [ $rc -eq 99 ] || [ $rc -ge 128 ]; then
    echo "FAIL $table ($args)"; head -20 "${TMPDIR:-/tmp}/vg.$$"; fail=$((fail+1))
  else
    pass=$((pass+1))
  fi
done <<'EOF_CASES'
scan --format ndjson --filter "part = 8 AND col1 > 40 OR col2 LIKE 'foo%'"|delta-golden.dv-partitioned-with-checkpoint
scan --format ndjson --stats --filter "as_nested_struct.ac.aca = 2 OR as_int IS NULL"|delta-golden.data-reader-partition-values
scan --format ndjson --filter "as_int IN (0, 1) AND NOT as_string > '5'"|delta-golden.data-skipping-basic-stats-all-types-columnmapping-name
scan --format ndjson --filter "nope = 1"|kernel-rs.table-with-dv-small
plan --filter "value BETWEEN 2 AND 5"|kernel-rs.table-with-dv-small
changes --from 0 --format ndjson --filter "_change_type != 'insert' AND id > 1"|delta-rs.cdf-table
EOF_CASES
rm -f "${TMPDIR:-/tmp}/vg.$$"
echo "valgrind: $pass passed, $fail failed"
[ $fail -eq 0 ]
