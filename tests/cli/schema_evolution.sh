#!/usr/bin/env bash
# --schema-mode merge with new fields inside structs (also structs in
# arrays): the schema grows (nullable fields), column-mapped tables give the
# new fields ids and physical names and bump maxColumnId, new files carry
# the field ids, old files read the new fields as null; without merge a new
# nested field is an error; input lacking a nested field writes nulls.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
rows() { "$deltac" scan --format ndjson "$1" | python3 -c "import json,sys; print(json.dumps(sorted((json.loads(l) for l in sys.stdin), key=lambda r: r['id']), sort_keys=True))"; }

printf '{"id":1,"s":{"a":1},"arr":[{"k":1}]}\n' >"$tmp/v0.ndjson"
printf '{"id":2,"s":{"a":2,"t":{"deep":true}},"arr":[{"k":2,"extra":"e"}]}\n{"id":3,"s":{"b":"bee"},"arr":null}\n' >"$tmp/v1.ndjson"
want='[{"arr": [{"extra": null, "k": 1}], "id": 1, "s": {"a": 1, "b": null, "t": null}}, {"arr": [{"extra": "e", "k": 2}], "id": 2, "s": {"a": 2, "b": null, "t": {"deep": true}}}, {"arr": null, "id": 3, "s": {"a": null, "b": "bee", "t": null}}]'

for cm in none name id; do
  t="$tmp/t_$cm"
  run write --schema 'id long, s struct<a: long>, arr array<struct<k: long>>' \
    --property delta.columnMapping.mode=$cm --input "$tmp/v0.ndjson" "$t" || continue
  expect_error 'input field s.t is not in the table (use --schema-mode merge to add it)' write --input "$tmp/v1.ndjson" "$t"
  run write --schema-mode merge --input "$tmp/v1.ndjson" "$t" || continue
  expect_eq "$cm rows" "$(rows "$t")" "$want"
  python3 - "$t" "$cm" <<'PY' && ok || bad "$cm schema checks"
import json, sys
t, cm = sys.argv[1], sys.argv[2]
acts = [json.loads(l) for l in open(t + "/_delta_log/00000000000000000001.json")]
m = next(a["metaData"] for a in acts if "metaData" in a)
sch = json.loads(m["schemaString"])
s = next(f for f in sch["fields"] if f["name"] == "s")["type"]
assert [f["name"] for f in s["fields"]] == ["a", "t", "b"], s
assert all(f["nullable"] for f in s["fields"])
el = next(f for f in sch["fields"] if f["name"] == "arr")["type"]["elementType"]
assert [f["name"] for f in el["fields"]] == ["k", "extra"], el
if cm != "none":
    ids = []
    def walk(t):
        if isinstance(t, dict) and t.get("type") == "struct":
            for f in t["fields"]:
                md = f["metadata"]
                assert "delta.columnMapping.id" in md and md["delta.columnMapping.physicalName"].startswith("col-"), f
                ids.append(md["delta.columnMapping.id"])
                walk(f["type"])
        elif isinstance(t, dict) and t.get("type") == "array":
            walk(t["elementType"])
    walk(sch)
    assert len(set(ids)) == len(ids) == 9, ids
    assert int(m["configuration"]["delta.columnMapping.maxColumnId"]) == max(ids) == 9, m["configuration"]
PY
  if [ $cm != none ]; then
    # the new file carries field ids for the new nested fields
    f=$(python3 -c "
import json
for l in open('$t/_delta_log/00000000000000000001.json'):
    a = json.loads(l)
    if 'add' in a: print(a['add']['path'])")
    "$deltac" parquet schema "$t/$f" >"$tmp/pschema"
    grep -qE 'BOOLEAN col-[0-9a-f-]+ = [0-9]+;' "$tmp/pschema" && ok || bad "$cm field id of s.t.deep: $(cat "$tmp/pschema")"
  fi
  # filters reach the new nested fields, in old and new files
  expect_eq "$cm filter" "$("$deltac" scan --format ndjson --filter "s.t.deep = true" "$t" | python3 -c "import json,sys; print([json.loads(l)['id'] for l in sys.stdin])")" "[2]"
done

# Parquet input whose struct lacks a table field: the field is null
run create --schema 'id long, s struct<a: long>' "$tmp/src"
printf '{"id":9,"s":{"a":99}}\n' >"$tmp/p.ndjson"
run write --input "$tmp/p.ndjson" "$tmp/src"
run write --input "$(ls "$tmp/src"/*.parquet | head -1)" "$tmp/t_none"
expect_eq "parquet input lacking s.b, s.t" "$("$deltac" scan --format ndjson --filter "id = 9" "$tmp/t_none")" '{"id":9,"s":{"a":99,"t":null,"b":null},"arr":null}'
# a nested type change is still refused
printf '{"id":10,"s":{"a":"text"}}\n' >"$tmp/bad.ndjson"
expect_error 'column a: expected an integer, got string' write --schema-mode merge --input "$tmp/bad.ndjson" "$tmp/t_none"

finish schema_evolution
