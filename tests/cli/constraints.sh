#!/usr/bin/env bash
# CHECK constraints (delta.constraints.*) and NOT NULL columns and struct
# fields: enforced on write (NDJSON and Parquet input), overwrite and
# update; a violation names the constraint and a row, exits 1 and commits
# nothing; NULL passes a CHECK; the protocol asks for checkConstraints.
# NOT NULL inside arrays and maps (containsNull / valueContainsNull false,
# struct fields of elements): NDJSON, Parquet and Arrow input, overwrite,
# replace-where, update and merge.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
versions() { ls "$1/_delta_log" | grep -c '\.json$'; }
rows() { "$deltac" scan --format ndjson "$1" | python3 -c "import json,sys; print(sorted((r['id'], r['amount']) for r in map(json.loads, sys.stdin)))"; }

schema='{"type":"struct","fields":[
 {"name":"id","type":"long","nullable":false,"metadata":{}},
 {"name":"amount","type":"long","nullable":true,"metadata":{}},
 {"name":"s","type":{"type":"struct","fields":[
   {"name":"x","type":"long","nullable":false,"metadata":{}},
   {"name":"y","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}'
t="$tmp/t"
run create --schema "$schema" --property delta.constraints.positive="amount > 0" \
  --property "delta.constraints.small=id < 100" "$t"
python3 - "$t" <<'PY' && ok || bad "protocol and configuration"
import json, sys
acts = [json.loads(l) for l in open(sys.argv[1] + "/_delta_log/00000000000000000000.json")]
p = next(a["protocol"] for a in acts if "protocol" in a)
assert p["minWriterVersion"] >= 3, p
m = next(a["metaData"] for a in acts if "metaData" in a)
assert m["configuration"]["delta.constraints.positive"] == "amount > 0", m
PY

printf '{"id":1,"amount":5,"s":{"x":1,"y":"a"}}\n{"id":2,"amount":null,"s":null}\n{"id":3,"amount":7,"s":{"x":3,"y":null}}\n' >"$tmp/good.ndjson"
run write --input "$tmp/good.ndjson" "$t"
expect_eq "good rows" "$(rows "$t")" "[(1, 5), (2, None), (3, 7)]"

# a CHECK violation: the constraint, its expression and the row
printf '{"id":4,"amount":1,"s":null}\n{"id":5,"amount":-5,"s":{"x":1,"y":"b"}}\n' >"$tmp/neg.ndjson"
expect_error 'write: CHECK constraint positive (amount > 0) violated by row {"id":5,"amount":-5,"s":{"x":1,"y":"b"}}' \
  write --input "$tmp/neg.ndjson" "$t"
printf '{"id":400,"amount":1,"s":null}\n' >"$tmp/big.ndjson"
expect_error 'CHECK constraint small (id < 100) violated by row {"id":400' write --input "$tmp/big.ndjson" "$t"
expect_error 'CHECK constraint positive' write --mode overwrite --input "$tmp/neg.ndjson" "$t"
expect_eq "nothing committed by failed writes" "$(versions "$t")" 2
expect_eq "rows unchanged" "$(rows "$t")" "[(1, 5), (2, None), (3, 7)]"
# no data file of a failed write is referenced
expect_eq "row count" "$("$deltac" scan --format count "$t")" 3

# NOT NULL through Parquet input (the text reader checks NDJSON by itself):
# a helper table with the same columns, all nullable, gives the files
loose="$tmp/loose"
run create --schema 'id long, amount long, s struct<x: long, y: string>' "$loose"
printf '{"id":6,"amount":1,"s":{"x":null,"y":"n"}}\n' >"$tmp/nested_null.ndjson"
run write --input "$tmp/nested_null.ndjson" "$loose"
f=$(ls "$loose"/*.parquet | head -1)
expect_error 'write: NOT NULL constraint on s.x violated by row {"id":6,"amount":1,"s":{"x":null,"y":"n"}}' \
  write --input "$f" "$t"
run create --schema 'id long, amount long, s struct<x: long, y: string>' "$tmp/loose2"
printf '{"id":null,"amount":1,"s":null}\n' >"$tmp/top_null.ndjson"
run write --input "$tmp/top_null.ndjson" "$tmp/loose2"
expect_error 'NOT NULL constraint on id violated by row {"id":null' write --input "$(ls "$tmp/loose2"/*.parquet | head -1)" "$t"
# a null struct holds no field to violate; a NULL amount passes the CHECK
printf '{"id":7,"amount":null,"s":null}\n' >"$tmp/ok_nulls.ndjson"
run write --input "$tmp/ok_nulls.ndjson" "$loose"
run write --input "$(ls -t "$loose"/*.parquet | head -1)" "$t"
expect_eq "after null-struct write" "$(versions "$t")" 3

# UPDATE goes through the same checks
expect_error 'update: CHECK constraint positive (amount > 0) violated by row {"id":1,"amount":-1' \
  update --where "id = 1" --set "amount = -1" "$t"
expect_error 'update: NOT NULL constraint on id violated' update --where "id = 3" --set "id = NULL" "$t"
expect_eq "failed updates commit nothing" "$(versions "$t")" 3
run update --where "id = 1" --set "amount = 50" "$t"
expect_eq "good update" "$(rows "$t")" "[(1, 50), (2, None), (3, 7), (7, None)]"
# DELETE never violates
run delete --where "id = 2" "$t"
expect_eq "delete" "$(rows "$t")" "[(1, 50), (3, 7), (7, None)]"

# a constraint on a column the input lacks sees NULL there: passes
run create --schema 'id long, amount long' --property 'delta.constraints.p=amount > 0' "$tmp/t2"
printf '{"id":1}\n' >"$tmp/id_only.ndjson"
run write --input "$tmp/id_only.ndjson" "$tmp/t2"
# ... but IS NOT NULL does not
run create --schema 'id long, amount long' --property 'delta.constraints.nn=amount IS NOT NULL' "$tmp/t3"
expect_error 'CHECK constraint nn (amount IS NOT NULL) violated by row {"id":1}' write --input "$tmp/id_only.ndjson" "$tmp/t3"

# partitioned, with table features (deletion vectors): checkConstraints listed
run create --schema 'id long, p string, amount long' --partition-by p --property delta.enableDeletionVectors=true \
  --property "delta.constraints.p_known=p IN ('a', 'b')" "$tmp/t4"
grep -q '"checkConstraints"' "$tmp/t4/_delta_log/00000000000000000000.json" && ok || bad "checkConstraints feature"
printf '{"id":1,"p":"a","amount":1}\n{"id":2,"p":"c","amount":1}\n' >"$tmp/parts.ndjson"
expect_error "CHECK constraint p_known (p IN ('a', 'b')) violated by row {\"id\":2,\"p\":\"c\"" write --input "$tmp/parts.ndjson" "$tmp/t4"
expect_eq "partitioned: nothing committed" "$(versions "$tmp/t4")" 1

# bad constraints are refused when the table is created
expect_error 'CHECK constraint bad (nope > 1): filter: no column named nope' \
  create --schema 'a long' --property 'delta.constraints.bad=nope > 1' "$tmp/t5"
expect_error 'CHECK constraint bad' create --schema 'a long' --property 'delta.constraints.bad=a >' "$tmp/t5"
expect_error 'a constraint needs a name' create --schema 'a long' --property 'delta.constraints.=a > 1' "$tmp/t5"
[ ! -e "$tmp/t5/_delta_log" ] && ok || bad "refused create left a log"

# deltac constraint add / drop
t6="$tmp/t6"
printf '{"id":1,"amount":5}\n{"id":2,"amount":-1}\n' >"$tmp/t6.ndjson"
run write --input "$tmp/t6.ndjson" "$t6"
expect_error 'constraint add: existing rows: CHECK constraint positive (amount > 0) violated by row {"id":2,"amount":-1}' \
  constraint add positive "amount > 0" "$t6"
expect_eq "refused add: versions" "$(versions "$t6")" 1
run delete --where "id = 2" "$t6"
run constraint add positive "amount > 0" "$t6"
python3 - "$t6" <<'PY' && ok || bad "add: protocol, metadata, commitInfo"
import json, sys
acts = [json.loads(l) for l in open(sys.argv[1] + "/_delta_log/00000000000000000002.json")]
ci = acts[0]["commitInfo"]
assert ci["operation"] == "ADD CONSTRAINT" and ci["operationParameters"] == {"name": "positive", "expr": "amount > 0"}, ci
assert next(a["protocol"] for a in acts if "protocol" in a)["minWriterVersion"] == 3
m = next(a["metaData"] for a in acts if "metaData" in a)
assert m["configuration"]["delta.constraints.positive"] == "amount > 0", m
PY
expect_error 'constraint Positive already exists' constraint add Positive "amount > 1" "$t6"
printf '{"id":3,"amount":-7}\n' >"$tmp/neg7.ndjson"
expect_error 'CHECK constraint positive (amount > 0) violated by row {"id":3,"amount":-7}' write --input "$tmp/neg7.ndjson" "$t6"
expect_error 'no column named nope' constraint add c2 "nope > 1" "$t6"
run constraint drop positive "$t6"
run write --input "$tmp/neg7.ndjson" "$t6"
expect_error 'the table has no constraint positive' constraint drop positive "$t6"
run constraint drop --if-exists positive "$t6"
expect_eq "drops and writes" "$(versions "$t6")" 5
# a table-features protocol gets checkConstraints
run create --schema 'id long' --property delta.enableDeletionVectors=true "$tmp/t7"
run constraint add small "id < 5" "$tmp/t7"
grep -q '"checkConstraints"' "$tmp/t7/_delta_log/00000000000000000001.json" && ok || bad "checkConstraints added"

# column invariants (legacy writer 2): field metadata delta.invariants
inv='{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"x","type":"long","nullable":true,"metadata":{"delta.invariants":"{\"expression\":{\"expression\":\"x > 3\"}}"}}]}'
run create --schema "$inv" "$tmp/t8"
printf '{"id":1,"x":5}\n{"id":2,"x":null}\n' >"$tmp/inv_ok.ndjson"
run write --input "$tmp/inv_ok.ndjson" "$tmp/t8"
printf '{"id":3,"x":1}\n' >"$tmp/inv_bad.ndjson"
expect_error 'invariant of column x (x > 3) violated by row {"id":3,"x":1}' write --input "$tmp/inv_bad.ndjson" "$tmp/t8"
expect_error 'invariant of column x (x > 3) violated' update --set "x = 0" --where "id = 1" "$tmp/t8"
expect_eq "invariants: versions" "$(versions "$tmp/t8")" 2

# --- NOT NULL inside arrays and maps ---
nschema='{"type":"struct","fields":[
 {"name":"id","type":"long","nullable":false,"metadata":{}},
 {"name":"tags","type":{"type":"array","elementType":"string","containsNull":false},"nullable":true,"metadata":{}},
 {"name":"attrs","type":{"type":"map","keyType":"string","valueType":"long","valueContainsNull":false},"nullable":true,"metadata":{}},
 {"name":"items","type":{"type":"array","elementType":{"type":"struct","fields":[
   {"name":"qty","type":"long","nullable":false,"metadata":{}}]},"containsNull":true},"nullable":true,"metadata":{}}]}'
n="$tmp/n"
run create --schema "$nschema" "$n"
printf '{"id":1,"tags":["a"],"attrs":{"k":1},"items":[null,{"qty":2}]}\n{"id":2,"tags":null,"attrs":null,"items":null}\n{"id":3,"tags":[],"attrs":{},"items":[]}\n' >"$tmp/n_ok.ndjson"
run write --input "$tmp/n_ok.ndjson" "$n"
expect_eq "nested: allowed nulls written" "$("$deltac" scan --format count "$n")" 3
printf '{"id":4,"tags":["a",null]}\n' >"$tmp/n_tags.ndjson"
printf '{"id":5,"attrs":{"k":null}}\n' >"$tmp/n_attrs.ndjson"
printf '{"id":6,"items":[{"qty":1},{"qty":null}]}\n' >"$tmp/n_items.ndjson"
expect_error 'write: NOT NULL constraint on tags.element violated by row {"id":4,"tags":["a",null]}' \
  write --input "$tmp/n_tags.ndjson" "$n"
expect_error 'write: NOT NULL constraint on attrs.value violated by row {"id":5,"attrs":{"k":null}}' \
  write --input "$tmp/n_attrs.ndjson" "$n"
expect_error 'write: NOT NULL constraint on items.element.qty violated by row {"id":6,"items":[{"qty":1},{"qty":null}]}' \
  write --input "$tmp/n_items.ndjson" "$n"
expect_error 'NOT NULL constraint on tags.element' write --mode overwrite --input "$tmp/n_tags.ndjson" "$n"
expect_error 'NOT NULL constraint on items.element.qty' \
  write --mode overwrite --replace-where "id = 6" --input "$tmp/n_items.ndjson" "$n"
printf '{"id":null,"tags":["a"]}\n' >"$tmp/n_id.ndjson"
expect_error 'NOT NULL constraint on id violated by row {"id":null,"tags":["a"]}' write --input "$tmp/n_id.ndjson" "$n"
# the same rows as Parquet and as an Arrow stream, from a table that allows them
nl="$tmp/nloose"
run create --schema 'id long, tags array<string>, attrs map<string, long>, items array<struct<qty: long>>' "$nl"
for f in tags attrs items; do run write --input "$tmp/n_$f.ndjson" "$nl"; done
for f in "$nl"/*.parquet; do
  expect_error 'write: NOT NULL constraint on ' write --input "$f" "$n"
done
"$deltac" scan --format arrow "$nl" >"$tmp/nl.arrows"
expect_error 'write: NOT NULL constraint on ' write --format arrow "$n" <"$tmp/nl.arrows"
"$deltac" scan --format arrow --filter "id = 5" "$nl" >"$tmp/n5.arrows"
expect_error 'write: NOT NULL constraint on attrs.value violated by row {"id":5,"tags":null,"attrs":{"k":null},"items":null}' \
  write --format arrow "$n" <"$tmp/n5.arrows"
expect_eq "nested: nothing committed" "$(versions "$n")" 2
# update and merge rewrite rows through the same check: a table whose schema
# was tightened by hand after bad rows were written (the only way to get some)
nt="$tmp/ntight"
cp -r "$nl" "$nt"
python3 - "$nt" "$nschema" <<'PY' && ok || bad "tighten the schema"
import json, sys
p = sys.argv[1] + "/_delta_log/00000000000000000000.json"
acts = [json.loads(l) for l in open(p)]
for a in acts:
    if "metaData" in a: a["metaData"]["schemaString"] = json.dumps(json.loads(sys.argv[2]))
open(p, "w").write("".join(json.dumps(a) + "\n" for a in acts))
PY
expect_error 'update: NOT NULL constraint on tags.element violated by row {"id":40' update --where "id = 4" --set "id = 40" "$nt"
printf '{"id":5}\n' >"$tmp/n_key5.ndjson"
expect_error 'merge: NOT NULL constraint on attrs.value violated by row {"id":5' \
  merge --source "$tmp/n_key5.ndjson" --on "t.id = s.id" --when-matched-update "id = s.id" "$nt"
printf '{"id":9,"tags":[],"attrs":{},"items":[{"qty":null}]}\n' >"$tmp/n_ins.ndjson"
expect_error 'merge: NOT NULL constraint on items.element.qty violated by row {"id":9' \
  merge --source "$tmp/n_ins.ndjson" --on "t.id = s.id" --when-not-matched-insert-all "$n"
expect_eq "nested update/merge: nothing committed" "$(versions "$nt")" 4
run delete --where "id = 4" "$nt"

finish constraints
