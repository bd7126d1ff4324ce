#!/usr/bin/env bash
# deltac merge beyond equi-joins and fixed schemas:
#  - ON conditions without a t.col = s.col equality (BETWEEN, >= / <,
#    OR of equalities, constants) run as a nested-loop join: exact rows,
#    not-matched-by-source, the several-matches error, file pruning by the
#    source's range;
#  - --schema-mode merge: new top-level columns and struct fields from
#    update-all/insert-all, explicit new columns, column mapping ids, the
#    change feed across the schema change, the refusals; without the flag
#    extra source columns are ignored (Spark);
#  - operationMetrics of MERGE, DELETE and UPDATE: Spark's key sets, exact
#    counts, bytes equal to the commit's add/remove sizes.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
# rows as sorted "id:ts:v"
rows() { "$deltac" scan --format ndjson "$1" | python3 -c "
import json,sys; print(' '.join('%s:%s:%s' % (r['id'], r['ts'], r['v']) for r in sorted(map(json.loads, sys.stdin), key=lambda r: r['id'])))"; }
# every row as compact JSON, sorted by id
jrows() { "$deltac" scan --format ndjson "$1" | python3 -c "
import json,sys; print(' '.join(json.dumps(r, separators=(',', ':')) for r in sorted(map(json.loads, sys.stdin), key=lambda r: r['id'])))"; }
versions() { ls "$1/_delta_log" | grep -c '\.json$'; }

# a table of three files: ids 1-10, 11-20, 21-30, ts = id * 10
mk() {
  rm -rf "$1"
  for k in 0 1 2; do
    python3 -c "
import json
for i in range($k * 10 + 1, $k * 10 + 11): print(json.dumps({'id': i, 'ts': i * 10, 'v': 'x%d' % i}))" >"$tmp/part$k.ndjson"
    local props=()
    [ $k = 0 ] && props=("${@:2}")
    run write --schema 'id long, ts long, v string' "${props[@]}" --input "$tmp/part$k.ndjson" "$1" || return 1
  done
}

# ---------------------------------------------------------------- non-equi
printf '{"lo":15,"hi":35,"tag":"A"}\n{"lo":70,"hi":80,"tag":"B"}\n{"lo":400,"hi":500,"tag":"C"}\n' >"$tmp/ranges.ndjson"
for dv in no yes; do
  t="$tmp/ne_$dv"
  props=()
  [ $dv = yes ] && props=(--property delta.enableDeletionVectors=true)
  mk "$t" "${props[@]}" || continue
  # BETWEEN: update the rows in a range, insert the range nothing fell into
  run merge "$t" --source "$tmp/ranges.ndjson" --on "t.ts BETWEEN s.lo AND s.hi" \
    --when-matched-update "v = s.tag" --when-not-matched-insert "id = s.lo, ts = s.hi, v = s.tag" || continue
  expect_eq "$dv between" "$(rows "$t" | cut -d' ' -f1-9)" "1:10:x1 2:20:A 3:30:A 4:40:x4 5:50:x5 6:60:x6 7:70:B 8:80:B 9:90:x9"
  expect_eq "$dv between inserted" "$(rows "$t" | tr ' ' '\n' | grep -c ':C$')" "1"
  grep -q "1 rows inserted, 4 updated, 0 deleted" "$tmp/out" && ok || bad "$dv between summary: $(cat "$tmp/out")"
  # half-open range with delete, and not matched by source
  run merge "$t" --source <(printf '{"start":250,"end":280}\n') --format ndjson --on "t.ts >= s.start AND t.ts < s.end" \
    --when-matched-delete --when-not-matched-by-source-update "v = 'kept'" --if "t.id = 30" || continue
  expect_eq "$dv half-open" "$(rows "$t" | tr ' ' '\n' | grep -E '^(24|25|26|27|28|30):' | tr '\n' ' ')" \
    "24:240:x24 28:280:x28 30:300:kept "
  # OR of equalities: either key matches
  run merge "$t" --source <(printf '{"a":5,"b":0}\n{"a":0,"b":110}\n') --format ndjson \
    --on "t.id = s.a OR t.ts = s.b" --when-matched-update "v = 'or'" || continue
  expect_eq "$dv or" "$(rows "$t" | tr ' ' '\n' | grep ':or$' | tr '\n' ' ')" "5:50:or 11:110:or "
  # a target row in two ranges: an update is an error, the table unchanged
  n=$(versions "$t")
  expect_error "matched 2 source rows" merge "$t" --source <(printf '{"lo":0,"hi":100}\n{"lo":50,"hi":60}\n') \
    --format ndjson --on "t.ts BETWEEN s.lo AND s.hi" --when-matched-update "v = 'dup'"
  expect_eq "$dv dup left the table" "$(versions "$t")" "$n"
  # ... but an unconditional delete may match several; a constant ON matches every pair
  run merge "$t" --source <(printf '{"k":1}\n{"k":2}\n') --format ndjson --on "true" --when-matched-delete || continue
  expect_eq "$dv true deletes all" "$(rows "$t")" ""
  run merge "$t" --source <(printf '{"k":1}\n{"k":2}\n') --format ndjson --on "false" \
    --when-not-matched-insert "id = s.k, ts = 0, v = 'ins'" || continue
  expect_eq "$dv false inserts all" "$(rows "$t")" "1:0:ins 2:0:ins"
done

# pruning: only the file whose ts range meets [15, 35] is read
t="$tmp/prune"
mk "$t" || true
run merge "$t" --source <(printf '{"lo":15,"hi":35}\n') --format ndjson --on "t.ts BETWEEN s.lo AND s.hi" \
  --when-matched-update "v = 'hit'" &&
  { grep -q "2 of 3 files skipped" "$tmp/out" && ok || bad "pruning: $(cat "$tmp/out")"; }
expect_eq "pruned rows" "$(rows "$t" | tr ' ' '\n' | grep -c ':hit$')" "2"
# with a not-matched-by-source clause every file is read
run merge "$t" --source <(printf '{"lo":15,"hi":35}\n') --format ndjson --on "t.ts BETWEEN s.lo AND s.hi" \
  --when-matched-update "v = 'hit2'" --when-not-matched-by-source-delete --if "t.id = 30" &&
  { grep -q "0 of 3 files skipped" "$tmp/out" && ok || bad "no pruning with nmbs: $(cat "$tmp/out")"; }
expect_eq "nmbs rows" "$(rows "$t" | tr ' ' '\n' | grep -cE ':hit2$|^30:')" "2"

# -------------------------------------------------------- schema evolution
printf '{"id":1,"v":"a","st":{"a":1,"b":"x"}}\n{"id":2,"v":"b","st":{"a":2,"b":"y"}}\n' >"$tmp/base.ndjson"
printf '{"id":2,"v":"B","extra":7,"st":{"c":true,"a":20}}\n{"id":3,"v":"C","extra":8,"st":{"a":30,"b":"z","c":false}}\n' \
  >"$tmp/evo.ndjson"
for cm in none name; do
  t="$tmp/evo_$cm"
  props=(--property delta.enableChangeDataFeed=true)
  [ $cm = name ] && props+=(--property delta.columnMapping.mode=name)
  run write --schema 'id long, v string, st struct<a: long, b: string>' "${props[@]}" --input "$tmp/base.ndjson" "$t" ||
    continue
  # without the flag: extra columns and fields ignored, the schema as it was
  run merge "$t" --source "$tmp/evo.ndjson" --on "t.id = s.id" --when-matched-update-all --when-not-matched-insert-all ||
    continue
  expect_eq "$cm strict rows" "$(jrows "$t")" \
    '{"id":1,"v":"a","st":{"a":1,"b":"x"}} {"id":2,"v":"B","st":{"a":20,"b":null}} {"id":3,"v":"C","st":{"a":30,"b":"z"}}'
  ! grep -q '"metaData"' "$t/_delta_log/00000000000000000001.json" && ok || bad "$cm strict wrote metaData"
  # with it: extra appended, st.c added; old rows read null
  run merge "$t" --source "$tmp/evo.ndjson" --on "t.id = s.id" --schema-mode merge \
    --when-matched-update-all --when-not-matched-insert-all || continue
  expect_eq "$cm evolved rows" "$(jrows "$t")" \
    '{"id":1,"v":"a","st":{"a":1,"b":"x","c":null},"extra":null} {"id":2,"v":"B","st":{"a":20,"b":null,"c":true},"extra":7} {"id":3,"v":"C","st":{"a":30,"b":"z","c":false},"extra":8}'
  python3 - "$t" "$cm" <<'PY' || bad "$cm metaData"
import json, sys
acts = [json.loads(l) for l in open(sys.argv[1] + "/_delta_log/00000000000000000002.json")]
md = [a["metaData"] for a in acts if "metaData" in a]
assert len(md) == 1, acts
fields = json.loads(md[0]["schemaString"])["fields"]
assert [f["name"] for f in fields] == ["id", "v", "st", "extra"], fields
assert [f["name"] for f in fields[2]["type"]["fields"]] == ["a", "b", "c"], fields
assert all(f["nullable"] for f in fields[3:]), fields
if sys.argv[2] == "name":
    ids = [f["metadata"]["delta.columnMapping.id"] for f in fields] + \
          [f["metadata"]["delta.columnMapping.id"] for f in fields[2]["type"]["fields"]]
    assert sorted(ids) == list(range(1, 8)), ids
    assert md[0]["configuration"]["delta.columnMapping.maxColumnId"] == "7", md[0]["configuration"]
    assert all(f["metadata"]["delta.columnMapping.physicalName"].startswith("col-") for f in fields), fields
PY
  # the change feed reads both versions, across the schema change
  "$deltac" changes --from 1 --to 2 --format ndjson "$t" | python3 -c "
import json, sys
got = sorted((r['_commit_version'], r['_change_type'], r['id'], r.get('extra'), (r['st'] or {}).get('c')) for r in map(json.loads, sys.stdin))
want = [(1, 'insert', 3, None, None), (1, 'update_postimage', 2, None, None), (1, 'update_preimage', 2, None, None),
        (2, 'update_postimage', 2, 7, True), (2, 'update_postimage', 3, 8, False),
        (2, 'update_preimage', 2, None, None), (2, 'update_preimage', 3, None, None)]
assert got == want, got" && ok || bad "$cm changes across the schema change"
  # an explicit new column, typed by its value
  run merge "$t" --source "$tmp/evo.ndjson" --on "t.id = s.id" --schema-mode merge \
    --when-matched-update "score = s.extra * 10, note = 'n' || s.v" --if "s.id = 2" || continue
  expect_eq "$cm explicit" "$("$deltac" scan --format ndjson "$t" | python3 -c "
import json,sys; print(' '.join('%s:%s:%s' % (r['id'], r['score'], r['note']) for r in sorted(map(json.loads, sys.stdin), key=lambda r: r['id'])))")" \
    "1:None:None 2:70:nB 3:None:None"
  "$deltac" schema "$t" | grep -q "score: long" && ok || bad "$cm score type: $("$deltac" schema "$t")"
done

# refusals, the table unchanged
t="$tmp/evo_none"
n=$(versions "$t")
run write --schema 'id long, n long' --input <(printf '{"id":1,"n":5}\n') --format ndjson "$tmp/srcwide" || true
run write --schema 'id long, n integer' --input <(printf '{"id":1,"n":5}\n') --format ndjson "$tmp/tnarrow" || true
expect_error "widening a column's type is not supported" merge "$tmp/tnarrow" --source "$tmp/srcwide" \
  --on "t.id = s.id" --schema-mode merge --when-matched-update-all
expect_error "NULL has no type" merge "$t" --source "$tmp/evo.ndjson" --on "t.id = s.id" --schema-mode merge \
  --when-matched-update "nothing = NULL"
expect_error "no column named zz" merge "$t" --source "$tmp/evo.ndjson" --on "t.id = s.id" \
  --when-matched-update "zz = s.v"
"$deltac" merge "$t" --source "$tmp/evo.ndjson" --on "t.id = s.id" --schema-mode loose --when-matched-update-all \
  2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q "schema-mode is merge or strict" "$tmp/err" && ok || bad "--schema-mode loose: $(cat "$tmp/err")"
expect_eq "refusals left the table" "$(versions "$t")" "$n"

# ----------------------------------------------------------------- metrics
for dv in no yes; do
  t="$tmp/met_$dv"
  props=()
  [ $dv = yes ] && props=(--property delta.enableDeletionVectors=true)
  mk "$t" "${props[@]}" || continue
  run delete "$t" --where "id = 3" || continue
  run update "$t" --set "v = 'u'" --where "id = 13" || continue
  # one update, one delete (matched), one insert, one not-matched-by-source delete
  run merge "$t" --source <(printf '{"id":5,"op":"u"}\n{"id":6,"op":"d"}\n{"id":99,"op":"i"}\n') --format ndjson \
    --on "t.id = s.id" --when-matched-delete --if "s.op = 'd'" --when-matched-update "v = 'm'" \
    --when-not-matched-insert "id = s.id, ts = 0, v = s.op" \
    --when-not-matched-by-source-delete --if "t.id = 25" || continue
  python3 - "$t" "$dv" <<'PY' || bad "$dv metrics"
import json, sys, glob
t, dv = sys.argv[1], sys.argv[2] == "yes"
def commit(v):
    acts = [json.loads(l) for l in open("%s/_delta_log/%020d.json" % (t, v))]
    ci = [a["commitInfo"] for a in acts if "commitInfo" in a][0]
    added = sum(a["add"]["size"] for a in acts if "add" in a)
    removed = sum(a["remove"]["size"] for a in acts if "remove" in a)
    return ci, added, removed
common = {"numDeletionVectorsAdded", "numDeletionVectorsRemoved", "numDeletionVectorsUpdated", "numAddedChangeFiles",
          "numRemovedFiles", "numAddedFiles", "numCopiedRows", "numAddedBytes", "numRemovedBytes",
          "executionTimeMs", "scanTimeMs", "rewriteTimeMs"}
for v, op, rows_key in ((3, "DELETE", "numDeletedRows"), (4, "UPDATE", "numUpdatedRows")):
    ci, added, removed = commit(v)
    m = ci["operationMetrics"]
    assert ci["operation"] == op, ci
    assert common | {rows_key} <= set(m), (op, sorted(m))
    assert all(isinstance(x, str) for x in m.values()), m
    assert m[rows_key] == "1", m
    assert (int(m["numAddedBytes"]), int(m["numRemovedBytes"])) == (added, removed), (op, m, added, removed)
    assert m["numCopiedRows"] == ("0" if dv else "9"), m
    assert m["numDeletionVectorsAdded"] == ("1" if dv else "0"), m
ci, added, removed = commit(5)
m = ci["operationMetrics"]
keys = {"numSourceRows", "numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsMatchedUpdated",
        "numTargetRowsNotMatchedBySourceUpdated", "numTargetRowsDeleted", "numTargetRowsMatchedDeleted",
        "numTargetRowsNotMatchedBySourceDeleted", "numTargetRowsCopied", "numOutputRows", "numTargetFilesAdded",
        "numTargetFilesRemoved", "numTargetChangeFilesAdded", "numTargetBytesAdded", "numTargetBytesRemoved",
        "numTargetDeletionVectorsAdded", "numTargetDeletionVectorsRemoved", "numTargetDeletionVectorsUpdated",
        "executionTimeMs", "scanTimeMs", "rewriteTimeMs"}
assert keys <= set(m), sorted(keys - set(m))
assert all(isinstance(x, str) for x in m.values()), m
exact = {"numSourceRows": 3, "numTargetRowsInserted": 1, "numTargetRowsUpdated": 1, "numTargetRowsMatchedUpdated": 1,
         "numTargetRowsNotMatchedBySourceUpdated": 0, "numTargetRowsDeleted": 2, "numTargetRowsMatchedDeleted": 1,
         "numTargetRowsNotMatchedBySourceDeleted": 1, "numTargetChangeFilesAdded": 0,
         "numTargetBytesAdded": added, "numTargetBytesRemoved": removed}
if dv:
    # files 1 (ids 5, 6) and 3 (id 25) get DVs; file 1 already had one (id 3)
    exact.update({"numTargetRowsCopied": 0, "numOutputRows": 2, "numTargetFilesAdded": 1,
                  "numTargetFilesRemoved": 0, "numTargetDeletionVectorsAdded": 2,
                  "numTargetDeletionVectorsRemoved": 1, "numTargetDeletionVectorsUpdated": 1})
else:
    # file 1 (9 live rows) and file 3 (10 rows) rewritten: 7 + 9 rows copied
    exact.update({"numTargetRowsCopied": 16, "numOutputRows": 18, "numTargetFilesRemoved": 2,
                  "numTargetDeletionVectorsAdded": 0})
got = {k: int(m[k]) for k in exact}
assert got == exact, (got, exact)
assert int(m["executionTimeMs"]) >= int(m["scanTimeMs"]) >= 0 and int(m["rewriteTimeMs"]) >= 0, m
PY
  "$deltac" history "$t" | head -1 | grep -q '"numTargetBytesAdded":"' && ok || bad "$dv history shows the metrics"
done

# NULL for nested columns: an insert-all from a source that lacks them, and SET col = NULL
t="$tmp/nested_null"
run write --schema 'id long, m map<string,long>, l array<string>, s struct<a: int, b: array<struct<c: string>>>' \
  --input <(echo '{"id":1,"m":{"a":1},"l":["x"],"s":{"a":1,"b":[{"c":"q"}]}}') "$t"
run merge "$t" --source <(echo '{"id":2}') --format ndjson --on 't.id = s.id' --when-not-matched-insert-all
run update --set 'm = NULL, s = NULL' --where 'id = 1' "$t"
expect_eq "nested NULLs" "$("$deltac" scan --format ndjson "$t" | sort | tr '\n' ' ')" \
  '{"id":1,"m":null,"l":["x"],"s":null} {"id":2,"m":null,"l":null,"s":null} '
run merge "$t" --source <(echo '{"id":1}') --format ndjson --on 't.id = s.id' --when-matched-update 'l = NULL'
expect_eq "nested NULL in a matched update" "$("$deltac" scan --format ndjson "$t" | sort | head -1)" '{"id":1,"m":null,"l":null,"s":null}'

finish merge_more
