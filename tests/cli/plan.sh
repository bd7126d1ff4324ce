#!/usr/bin/env bash
# `deltac plan`: the scan plan as NDJSON — a header with the columns and
# their physical names, then the files a filtered scan reads, with
# locations an outside reader can open (data files and deletion vectors).
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# py FILE EXPR: evaluate EXPR with `lines` = the parsed NDJSON lines of FILE.
py() { python3 -c "import json,sys,os,urllib.parse; lines=[json.loads(l) for l in open(sys.argv[1])]; print(($2))" "$1"; }

dv=$T/delta-golden.dv-partitioned-with-checkpoint
"$deltac" plan "$dv" >"$tmp/all" || bad "plan failed"
"$deltac" plan --filter "part = 8" --stats "$dv" >"$tmp/p8" 2>"$tmp/stats" || bad "filtered plan failed"
[ "$(py "$tmp/all" "lines[0]['kind'], lines[0]['version'], len(lines) - 1")" = "('scan', 15, 15)" ] && ok || bad "header/count: $(head -c 200 "$tmp/all")"
[ "$(py "$tmp/p8" "len(lines) - 1, lines[0]['filter'], lines[1]['partition_values']")" = "(1, '(part = 8)', {'part': '8'})" ] && ok || bad "filtered plan: $(cat "$tmp/p8")"
grep -q '"files_skipped":14' "$tmp/stats" && ok || bad "plan --stats: $(cat "$tmp/stats")"
# every location, data and DV, names an existing file
missing=$(py "$tmp/all" "[p for l in lines[1:] for p in [l['location']] + ([l['deletion_vector']['location']] if l['deletion_vector'] else []) if not os.path.exists(urllib.parse.unquote(p[7:]))]")
[ "$missing" = "[]" ] && ok || bad "missing files: $missing"
[ "$(py "$tmp/all" "sum(1 for l in lines[1:] if l['deletion_vector'])")" -gt 0 ] && ok || bad "no deletion vectors in plan"
# the plan's record counts minus DV cardinalities are the scan's rows
rows=$("$deltac" scan --format ndjson "$dv" | wc -l)
[ "$(py "$tmp/all" "sum(l['num_records'] - (l['deletion_vector'] or {}).get('cardinality', 0) for l in lines[1:])")" = "$rows" ] && ok || bad "plan rows != scan rows ($rows)"

# column mapping: physical names and field ids in the header
cm=$T/delta-golden.data-skipping-basic-stats-all-types-columnmapping-id
"$deltac" plan "$cm" >"$tmp/cm" || bad "plan cm failed"
[ "$(py "$tmp/cm" "lines[0]['column_mapping'], lines[0]['columns'][0]['name'], lines[0]['columns'][0]['physical_name'].startswith('col-'), lines[0]['columns'][0]['field_id']")" = "('id', 'as_int', True, 1)" ] && ok || bad "column mapping header: $(head -c 300 "$tmp/cm")"
"$deltac" plan --filter "as_int = 1" "$cm" >"$tmp/cm1" && [ "$(wc -l <"$tmp/cm1")" -eq 1 ] && ok || bad "stats pruning under column mapping in plan"

# time travel and errors
"$deltac" plan --version 0 "$T/kernel-rs.table-with-dv-small" >"$tmp/v0" && [ "$(py "$tmp/v0" "lines[1]['deletion_vector']")" = "None" ] && ok || bad "plan --version 0"
"$deltac" plan --filter "nope = 1" "$dv" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no column named nope" "$tmp/err" && ok || bad "bad filter: $rc $(cat "$tmp/err")"

finish plan
