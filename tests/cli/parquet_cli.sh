#!/usr/bin/env bash
# The `deltac parquet` commands end to end: every output format, projection,
# limits, row-group selection, errors and exit codes.
set -uo pipefail
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "$0")/../.."
sample=tests/resources/sample.parquet
shared=${DELTAC_SHARED:-../shared}
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# expect_status CODE CMD...: exit status CODE and, for errors, exactly one stderr line.
expect_status() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" != "$want" ]; then bad "$* exited $got, wanted $want: $(head -c 300 "$tmp/err")"; return; fi
  if [ "$want" != 0 ]; then
    local lines; lines=$(wc -l <"$tmp/err")
    if [ "$lines" != 1 ] || ! grep -q '^deltac' "$tmp/err"; then bad "$*: stderr is not one 'deltac...' line: $(cat "$tmp/err")"; return; fi
  fi
  ok
}

# NDJSON: 200 rows with exact values in the first one.
"$deltac" parquet cat --format ndjson "$sample" >"$tmp/rows.ndjson" || bad "ndjson exit"
check "ndjson rows" python3 - "$tmp/rows.ndjson" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 5000, len(rows)
r = rows[3]
assert list(r) == ['order_id','customer','amount','ordered_at','ship_date','express','items','address'], list(r)
assert r == {"order_id": 3, "customer": "ken", "amount": 15.86, "ordered_at": "2026-01-01T03:03:33.000000Z",
             "ship_date": "2026-01-01", "express": True, "items": ["item-3","item-4","item-5"],
             "address": {"city": "Kyoto", "zip": "1003"}}, r
assert rows[0]["express"] is None and rows[0]["items"] == []
assert rows[4999]["order_id"] == 4999
PY
# The decimal keeps its scale in the text.
check "decimal scale" grep -q '"amount":0.00,' "$tmp/rows.ndjson"

# CSV parses back with a header and 200 records.
"$deltac" parquet cat --format csv "$sample" >"$tmp/rows.csv" || bad "csv exit"
check "csv" python3 - "$tmp/rows.csv" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert rows[0][0] == 'order_id' and len(rows) == 5001, (rows[0], len(rows))
assert rows[1][5] == '' and json.loads(rows[4][7]) == {"city": "Kyoto", "zip": "1003"}
PY

# JSON array.
"$deltac" parquet cat --format json --limit 7 "$sample" >"$tmp/rows.json" || bad "json exit"
check "json" python3 -c "import json,sys; a=json.load(open(sys.argv[1])); assert len(a)==7 and a[6]['order_id']==6" "$tmp/rows.json"
"$deltac" parquet cat --format json --limit 0 "$sample" >"$tmp/empty.json"
check "empty json array" python3 -c "import json,sys; assert json.load(open(sys.argv[1]))==[]" "$tmp/empty.json"

# Table: a box with a row count at the end.
"$deltac" parquet cat --format table --limit 4 "$sample" >"$tmp/rows.txt"
check "table footer" grep -qx '4 rows' "$tmp/rows.txt"
check "table header" grep -q 'order_id' "$tmp/rows.txt"

# Limits, projection, row groups.
check "limit" test "$("$deltac" parquet cat --format ndjson --limit 3 "$sample" | wc -l)" = 3
check "limit 0" test "$("$deltac" parquet cat --format ndjson --limit 0 "$sample" | wc -l)" = 0
check "projection" test "$("$deltac" parquet cat --format ndjson --limit 1 --columns customer,address.zip "$sample")" = '{"customer":"ada","address":{"zip":"1000"}}'
check "row groups" test "$("$deltac" parquet cat --format ndjson --row-groups 1,2 "$sample" | wc -l)" = 2952
check "row group order" test "$("$deltac" parquet cat --format ndjson --row-groups 2 --limit 1 --columns order_id "$sample")" = '{"order_id":4096}'
check "small batches" cmp -s <("$deltac" parquet cat --format ndjson --batch-rows 3 "$sample") "$tmp/rows.ndjson"

# Arrow IPC stream, read by apache-arrow.
"$deltac" parquet cat --format arrow "$sample" >"$tmp/rows.arrows" || bad "arrow exit"
"$deltac" parquet cat --format arrow --limit 10 "$sample" >"$tmp/ten.arrows" || bad "arrow limit exit"
if [ -d node_modules/apache-arrow ]; then
  check "arrow stream" node --input-type=module - "$tmp/rows.arrows" "$tmp/ten.arrows" <<'JS'
import { tableFromIPC } from 'apache-arrow';
import { readFileSync } from 'node:fs';
const t = tableFromIPC(readFileSync(process.argv[2]));
if (t.numRows !== 5000) throw new Error(`rows ${t.numRows}`);
const names = t.schema.fields.map(f => f.name).join(',');
if (names !== 'order_id,customer,amount,ordered_at,ship_date,express,items,address') throw new Error(names);
const r = t.get(3).toJSON();
if (r.customer !== 'ken' || Number(r.order_id) !== 3 || r.items.toArray().join() !== 'item-3,item-4,item-5' || r.address.city !== 'Kyoto')
  throw new Error(JSON.stringify(r, (k, v) => typeof v === 'bigint' ? String(v) : v));
if (t.getChild('express').nullCount !== 1000) throw new Error('nulls ' + t.getChild('express').nullCount);
const ten = tableFromIPC(readFileSync(process.argv[3]));
if (ten.numRows !== 10) throw new Error(`limited rows ${ten.numRows}`);
JS
else
  bad "node_modules/apache-arrow missing (run scripts/bootstrap.sh)"
fi

# schema and meta.
check "schema" grep -q 'optional group items (LIST)' <("$deltac" parquet schema "$sample")
check "arrow schema" grep -qx 'amount: d:10,2' <("$deltac" parquet schema --arrow "$sample")
"$deltac" parquet meta "$sample" >"$tmp/meta.json" || bad "meta exit"
check "meta" python3 - "$tmp/meta.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["num_rows"] == 5000 and len(m["row_groups"]) == 3
c = m["row_groups"][0]["columns"][0]
assert c["path"] == "order_id" and c["codec"] == "ZSTD" and c["min"] == 0 and c["max"] == 2047, c
PY
check "bench" grep -q '"rows": 5000' <("$deltac" parquet bench "$sample")

# Errors: one line on stderr, status 1; usage mistakes status 2.
expect_status 1 "$deltac" parquet cat /nonexistent.parquet
expect_status 1 "$deltac" parquet cat --columns nope "$sample"
expect_status 1 "$deltac" parquet cat --row-groups 9 "$sample"
expect_status 1 "$deltac" parquet cat tests/resources
for f in "$shared"/parquet/files/broken_*.parquet; do expect_status 1 "$deltac" parquet cat --format ndjson "$f"; done
expect_status 2 "$deltac"
expect_status 2 "$deltac" frobnicate
expect_status 2 "$deltac" parquet cat
expect_status 2 "$deltac" parquet cat --format yaml "$sample"
expect_status 2 "$deltac" parquet cat --limit -1 "$sample"
expect_status 2 "$deltac" parquet cat --bogus "$sample"
expect_status 2 "$deltac" parquet nope
expect_status 0 "$deltac" --version
expect_status 0 "$deltac" --features
expect_status 0 "$deltac" help

echo "parquet_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
