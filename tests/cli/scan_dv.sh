#!/usr/bin/env bash
# Scans with deletion vectors of each storage type — 'u' (relative UUID
# file), 'i' (inline), 'p' (absolute path, with characters that need
# percent-encoding) — with a checkpoint and with column mapping; corrupt and
# missing DV files; partition values of every type, null and with special
# characters.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"
# live TABLE [ARGS]: the live records `deltac info` counts (DVs subtracted)
live() { "$deltac" info --format json "$@" | python3 -c "import json,sys; d=json.load(sys.stdin); print(d['num_records'])"; }
count() { "$deltac" scan --format count "$@"; }
same_count() { # what TABLE [ARGS]: the scan returns exactly the live rows
  local what=$1; shift
  local want got; want=$(live "$@"); got=$(count "$@")
  if [ -n "$want" ] && [ "$want" = "$got" ]; then ok; else bad "$what: scan $got rows, info says $want live"; fi
}

# 'u': rows 0 and 9 are deleted
dv=$T/kernel-rs.table-with-dv-small
[ "$("$deltac" scan --format csv "$dv" | tail -n +2 | tr -d '\r' | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 " ] && ok || bad "u DV rows"
same_count "u DV" "$dv"
# 'i': inline DVs from version 3 on
cdf=$T/kernel-rs.cdf-table-with-dv
grep -q '"storageType":"i"' "$cdf/_delta_log/00000000000000000003.json" && ok || bad "fixture lacks an inline DV"
same_count "inline DV v3" "$cdf" --version 3
[ "$(count "$cdf" --version 3)" -lt "$(count "$cdf" --version 2)" ] && ok || bad "inline DV deletes nothing"
# 'p': an absolute DV path; the fixture holds a placeholder for its folder
src=$T/delta.spark-resources.table-with-dv-special-char
cp -r "$src" "$tmp/p"
folder=$(python3 -c "import urllib.parse,sys; print(urllib.parse.quote(sys.argv[1]))" "$tmp/p/folder&with%special char")
sed -i "s|{{FOLDER_WITH_SPECIAL_CHAR}}|$folder|" "$tmp/p/_delta_log/00000000000000000000.json"
[ "$(count "$tmp/p")" = 5 ] && ok || bad "p DV: $(count "$tmp/p" 2>&1)"
# DV + checkpoint, DV + column mapping
same_count "DV + checkpoint" "$T/delta-golden.dv-partitioned-with-checkpoint"
same_count "DV + column mapping" "$T/delta-golden.dv-with-columnmapping"
# a corrupt DV (checksum) and a missing one: one clear line, exit 1
cp -r "$dv" "$tmp/bad"
f=$(ls "$tmp/bad"/deletion_vector_*.bin)
python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-5]^=0xff; open(p,'wb').write(b)" "$f"
"$deltac" scan --format count "$tmp/bad" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qi "deletion vector" "$tmp/err" && ok || bad "corrupt DV: $rc $(cat "$tmp/err")"
rm "$f"
"$deltac" scan --format count "$tmp/bad" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "not found" "$tmp/err" && ok || bad "missing DV: $rc $(cat "$tmp/err")"

# partition values of every type, and the null partition
pv=$T/delta-golden.data-reader-partition-values
"$deltac" scan --format ndjson "$pv" >"$tmp/pv"
python3 - "$tmp/pv" <<'PY' && ok || bad "partition values of every type"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cols = ["as_int", "as_long", "as_byte", "as_short", "as_boolean", "as_float", "as_double", "as_string",
        "as_date", "as_timestamp", "as_big_decimal"]
nulls = [r for r in rows if r["as_int"] is None]
assert len(nulls) == 1 and all(nulls[0][c] is None for c in cols), nulls
zero = [r for r in rows if r["as_int"] == 0][0]
assert zero["as_boolean"] is True and zero["as_date"] == "2021-09-08" and zero["as_string"] == "0", zero
assert zero["as_timestamp"] == "2021-09-08T11:11:11.000000Z" and zero["as_string_lit_null"] == "null", zero
PY
# special characters in partition values: the log's values, not directory names
"$deltac" scan --format ndjson "$T/delta-golden.hive.deltatbl-special-chars-in-partition-column" >"$tmp/sc"
grep -qF '"c2":"+ =%0"' "$tmp/sc" && ok || bad "special-character partition value: $(head -2 "$tmp/sc")"

finish scan_dv
