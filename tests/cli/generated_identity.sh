#!/usr/bin/env bash
# Generated and identity columns on every write path: write, append,
# replace-where, UPDATE and MERGE compute generated columns (partition
# columns too), check given values, fill identity columns from the
# high-water mark (recorded in the commit's metaData), refuse explicit
# identity values and mismatched generated ones with nothing committed;
# copies of the shared tables that have such columns take our writes and
# still scan to their old rows plus ours; racing identity writers never
# give a value twice.
source "$(dirname "$0")/../lib.sh"
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
# rows TABLE [FILTER]: the table's rows as sorted compact JSON lines
rows() {
  if [ $# -gt 1 ]; then "$deltac" scan --format ndjson --filter "$2" "$1"; else "$deltac" scan --format ndjson "$1"; fi |
    python3 -c "import json,sys; print('\n'.join(sorted(json.dumps(json.loads(l), sort_keys=True, separators=(',', ':')) for l in sys.stdin if l.strip())))"
}
# want_rows WHAT TABLE ROWS...: the table's rows are exactly these (JSON, any order)
want_rows() {
  local what=$1 t=$2; shift 2
  local got want
  got=$(rows "$t")
  want=$(printf '%s\n' "$@" | python3 -c "import json,sys; print('\n'.join(sorted(json.dumps(json.loads(l), sort_keys=True, separators=(',', ':')) for l in sys.stdin if l.strip())))")
  if [ "$got" = "$want" ]; then ok; else bad "$what: got
$got
wanted
$want"; fi
}
# hwm TABLE COLUMN: the column's delta.identity.highWaterMark in the latest metaData ("none" without)
hwm() {
  python3 - "$1" "$2" <<'PY'
import glob, json, sys
md = None
for p in sorted(glob.glob(sys.argv[1] + "/_delta_log/*.json")):
    for line in open(p):
        a = json.loads(line)
        if "metaData" in a: md = a["metaData"]
for f in json.loads(md["schemaString"])["fields"]:
    if f["name"] == sys.argv[2]: print(f["metadata"].get("delta.identity.highWaterMark", "none"))
PY
}
version() { ls "$1"/_delta_log/*.json | wc -l; }

# --- a new table: identity (start 10, step 5), generated columns, a generated partition column ---
schema='{"type":"struct","fields":[
 {"name":"id","type":"long","nullable":false,"metadata":{"delta.identity.start":10,"delta.identity.step":5,"delta.identity.allowExplicitInsert":false}},
 {"name":"ts","type":"timestamp","nullable":true,"metadata":{}},
 {"name":"name","type":"string","nullable":true,"metadata":{}},
 {"name":"eventDate","type":"date","nullable":true,"metadata":{"delta.generationExpression":"CAST(ts AS DATE)"}},
 {"name":"ym","type":"string","nullable":true,"metadata":{"delta.generationExpression":"date_format(ts, '"'"'yyyy-MM'"'"')"}},
 {"name":"yr","type":"integer","nullable":true,"metadata":{"delta.generationExpression":"year(ts)"}},
 {"name":"tag","type":"string","nullable":true,"metadata":{"delta.generationExpression":"upper(substr(name, 1, 2)) || concat('"'"'-'"'"', lower(name))"}}]}'
t=$tmp/t
run create --schema "$schema" --partition-by eventDate "$t"
check "identity columns: writer version 6" grep -q '"minWriterVersion":6' "$t/_delta_log/00000000000000000000.json"
check "no high-water mark before the first value" test "$(hwm "$t" id)" = none
printf '%s\n' '{"ts":"2024-03-05T10:11:12Z","name":"Alice"}' '{"ts":"2023-12-31T23:59:59.5Z","name":"bob"}' \
  '{"ts":null,"name":null}' >"$tmp/in1.ndjson"
run write --input "$tmp/in1.ndjson" "$t"
want_rows "write fills identity and generated columns" "$t" \
  '{"id":10,"ts":"2024-03-05T10:11:12.000000Z","name":"Alice","eventDate":"2024-03-05","ym":"2024-03","yr":2024,"tag":"AL-alice"}' \
  '{"id":15,"ts":"2023-12-31T23:59:59.500000Z","name":"bob","eventDate":"2023-12-31","ym":"2023-12","yr":2023,"tag":"BO-bob"}' \
  '{"id":20,"ts":null,"name":null,"eventDate":null,"ym":null,"yr":null,"tag":null}'
check "high-water mark 20 after three rows" test "$(hwm "$t" id)" = 20
check "computed partition values" test -d "$t/eventDate=2024-03-05" -a -d "$t/eventDate=2023-12-31" -a -d "$t/eventDate=__HIVE_DEFAULT_PARTITION__"
check "partitionValues are the computed dates" grep -q '"partitionValues":{"eventDate":"2023-12-31"}' "$t/_delta_log/00000000000000000001.json"
# given values that match are fine; ones that do not are refused, nothing committed
echo '{"ts":"2024-03-05T10:11:12Z","name":"x","yr":2024,"eventDate":"2024-03-05"}' >"$tmp/ok.ndjson"
run write --input "$tmp/ok.ndjson" "$t"
check "high-water mark 25" test "$(hwm "$t" id)" = 25
v=$(version "$t")
echo '{"ts":"2024-03-05T10:11:12Z","name":"x","yr":2023}' >"$tmp/bad.ndjson"
expect_error "generated column yr: row 1 has 2023, but its expression year(ts) gives 2024" write --input "$tmp/bad.ndjson" "$t"
echo '{"id":3,"name":"x"}' >"$tmp/bad.ndjson"
expect_error "identity column id: row 1 gives it a value (3), but the column does not allow explicit values" write --input "$tmp/bad.ndjson" "$t"
check "refused writes commit nothing" test "$(version "$t")" = "$v"
check "scan still prunes on the generated partition column" test "$(rows "$t" "eventDate = '2023-12-31'" | wc -l)" = 1
check "filter on the source column" test "$(rows "$t" "ts >= '2024-01-01'" | wc -l)" = 2

# UPDATE recomputes generated columns (the partition moves), refuses identity and mismatches
run update --where "name = 'bob'" --set "ts = TIMESTAMP '2025-07-04 01:02:03', name = 'Robert'" "$t"
check "update recomputes" test "$(rows "$t" "name = 'Robert'")" = '{"eventDate":"2025-07-04","id":15,"name":"Robert","tag":"RO-robert","ts":"2025-07-04T01:02:03.000000Z","ym":"2025-07","yr":2025}'
check "update keeps the high-water mark" test "$(hwm "$t" id)" = 25
expect_error "identity column id cannot be updated" update --where "name = 'x'" --set "id = 99" "$t"
expect_error "generated column yr: row 1 has 1999, but its expression year(ts) gives 2024" update --where "name = 'x'" --set "yr = 1999" "$t"
run update --where "name = 'x'" --set "yr = 2024, name = 'y'" "$t"
check "update with a matching generated value" test "$(rows "$t" "name = 'y'")" = '{"eventDate":"2024-03-05","id":25,"name":"y","tag":"Y-y","ts":"2024-03-05T10:11:12.000000Z","ym":"2024-03","yr":2024}'

# MERGE: updates recompute, inserts get the next identity values
printf '%s\n' '{"name":"Alice","ts":"2020-01-01T00:00:00Z"}' '{"name":"Zed","ts":"2021-06-15T12:00:00Z"}' '{"name":"Amy","ts":"2021-06-16T00:00:00Z"}' >"$tmp/src.ndjson"
run merge --source "$tmp/src.ndjson" --on "t.name = s.name" --when-matched-update "ts = s.ts" \
  --when-not-matched-insert "name = s.name, ts = s.ts" "$t"
check "merge: the update recomputed" test "$(rows "$t" "name = 'Alice'")" = '{"eventDate":"2020-01-01","id":10,"name":"Alice","tag":"AL-alice","ts":"2020-01-01T00:00:00.000000Z","ym":"2020-01","yr":2020}'
check "merge: inserts 30 and 35" test "$(rows "$t" "id >= 30" | python3 -c "import json,sys; print(sorted((json.loads(l)['id'], json.loads(l)['name'], json.loads(l)['tag']) for l in sys.stdin))")" = "[(30, 'Zed', 'ZE-zed'), (35, 'Amy', 'AM-amy')]"
check "merge: high-water mark 35" test "$(hwm "$t" id)" = 35
echo '{"id":7,"name":"Q","ts":"2021-06-15T12:00:00Z"}' >"$tmp/src2.ndjson"
expect_error "identity column id: row 1 gives it a value (7)" merge --source "$tmp/src2.ndjson" --on "t.name = s.name" --when-not-matched-insert-all "$t"
echo '{"name":"Q","ts":"2021-06-15T12:00:00Z","yr":1}' >"$tmp/src3.ndjson"
expect_error "generated column yr: row 1 has 1" merge --source "$tmp/src3.ndjson" --on "t.name = s.name" --when-not-matched-insert "name = s.name, ts = s.ts, yr = s.yr" "$t"

# replace-where: new rows computed and numbered, the rows that stay keep theirs
echo '{"name":"R","ts":"2024-03-05T08:00:00Z"}' >"$tmp/rw.ndjson"
run write --mode overwrite --replace-where "name = 'y' OR name = 'R'" --input "$tmp/rw.ndjson" "$t"
check "replace-where: the old row is gone, the new one numbered 40" test "$(rows "$t" "eventDate = '2024-03-05'" | python3 -c "import json,sys; print(sorted((json.loads(l)['id'], json.loads(l)['name'], json.loads(l)['ym']) for l in sys.stdin))")" = "[(40, 'R', '2024-03')]"
check "replace-where: high-water mark 40" test "$(hwm "$t" id)" = 40
check "all ids distinct" test "$(rows "$t" | python3 -c "import json,sys; ids=[json.loads(l)['id'] for l in sys.stdin]; print(len(ids) == len(set(ids)))")" = True

# MERGE with schema evolution: one metaData carries both the new column and the high-water mark
printf '%s\n' '{"name":"Zed","extra":"e1"}' '{"name":"Neu","ts":"2022-01-01T00:00:00Z","extra":"e2"}' >"$tmp/ev.ndjson"
run merge --schema-mode merge --source "$tmp/ev.ndjson" --on "t.name = s.name" --when-matched-update "extra = s.extra" \
  --when-not-matched-insert "name = s.name, ts = s.ts, extra = s.extra" "$t"
last=$(ls "$t"/_delta_log/*.json | tail -1)
check "evolving merge: one metaData" test "$(grep -c '"metaData"' "$last")" = 1
check "evolving merge: high-water mark 45 and the new column" test "$(hwm "$t" id)/$(hwm "$t" extra)" = 45/none
check "evolving merge: rows" test "$(rows "$t" "extra IS NOT NULL" | python3 -c "import json,sys; print(sorted((r['id'], r['name'], r['extra'], r['yr']) for r in map(json.loads, sys.stdin)))")" = "[(30, 'Zed', 'e1', 2021), (45, 'Neu', 'e2', 2022)]"

# --- negative step; explicit values allowed (they do not move the high-water mark) ---------------
n=$tmp/neg
run create --schema '{"type":"struct","fields":[{"name":"k","type":"long","nullable":true,"metadata":{"delta.identity.start":-1,"delta.identity.step":-2,"delta.identity.allowExplicitInsert":true}},{"name":"v","type":"integer","nullable":true,"metadata":{}},{"name":"w","type":"long","nullable":true,"metadata":{"delta.generationExpression":"CASE WHEN v > 1 THEN v * 10 ELSE COALESCE(v, -1) END"}}]}' "$n"
printf '%s\n' '{"v":1}' '{"v":2}' '{"v":null}' >"$tmp/n1.ndjson"
run write --input "$tmp/n1.ndjson" "$n"
want_rows "negative step" "$n" '{"k":-1,"v":1,"w":1}' '{"k":-3,"v":2,"w":20}' '{"k":-5,"v":null,"w":-1}'
check "negative step: high-water mark -5" test "$(hwm "$n" k)" = -5
printf '%s\n' '{"k":100,"v":3}' '{"v":4}' >"$tmp/n2.ndjson"
run write --input "$tmp/n2.ndjson" "$n"
check "explicit value kept, next generated -7" test "$(rows "$n" "v >= 3")" = '{"k":-7,"v":4,"w":40}
{"k":100,"v":3,"w":30}'
check "explicit values leave the high-water mark" test "$(hwm "$n" k)" = -7

# --- table features (deletion vectors on): writer 7 lists both features; DML with DVs -----------
f=$tmp/feat
run create --schema '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.allowExplicitInsert":false}},{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"integer","nullable":true,"metadata":{"delta.generationExpression":"a + 1"}}]}' --property delta.enableDeletionVectors=true --property delta.enableChangeDataFeed=true "$f"
check "writer features" grep -q '"writerFeatures":\[[^]]*"generatedColumns","identityColumns"' "$f/_delta_log/00000000000000000000.json"
printf '%s\n' '{"a":1}' '{"a":2}' '{"a":3}' >"$tmp/f1.ndjson"
run write --input "$tmp/f1.ndjson" "$f"
run update --where "a = 2" --set "a = 20" "$f"
run delete --where "a = 3" "$f"
want_rows "features table after update and delete" "$f" '{"id":1,"a":1,"b":2}' '{"id":2,"a":20,"b":21}'
check "change data: the update's postimage has the recomputed column" test "$("$deltac" changes --format ndjson --from 2 --to 2 "$f" 2>/dev/null | python3 -c "import json,sys; print(sorted((r['_change_type'], r['b']) for r in map(json.loads, sys.stdin)))")" = "[('update_postimage', 21), ('update_preimage', 3)]"

expect_error "--replace-where on a change-data-feed table with generated or identity columns is not supported yet" \
  write --mode overwrite --replace-where "a = 1" --input "$tmp/f1.ndjson" "$f"

# --- an expression deltac cannot evaluate: a one-line refusal naming column and expression -------
u=$tmp/unk
expect_error "generated column h: deltac cannot evaluate its expression sha2(s, 256)" create --schema '{"type":"struct","fields":[{"name":"s","type":"string","nullable":true,"metadata":{}},{"name":"h","type":"string","nullable":true,"metadata":{"delta.generationExpression":"sha2(s, 256)"}}]}' "$u"
check "nothing created" test ! -e "$u/_delta_log"
expect_error "identity column i: delta.identity.step is 0" create --schema '{"type":"struct","fields":[{"name":"i","type":"long","nullable":true,"metadata":{"delta.identity.start":1,"delta.identity.step":0}}]}' "$u"

# --- a filter on the source column prunes partitions of a generated one -----------------------
# (stats taken out of the log, so only the derived partition bounds can skip files; timestamps
# widen the bounds by a day each way)
pp=$tmp/prune
run create --schema '{"type":"struct","fields":[{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},{"name":"d","type":"date","nullable":true,"metadata":{"delta.generationExpression":"CAST(ts AS DATE)"}},{"name":"m","type":"string","nullable":true,"metadata":{"delta.generationExpression":"date_format(ts, '"'"'yyyy-MM'"'"')"}}]}' --partition-by m,d "$pp"
for day in 2024-01-01 2024-01-02 2024-01-03 2024-01-05 2024-02-09; do echo "{\"ts\":\"${day}T10:00:00Z\"}"; done >"$tmp/pp.ndjson"
run write --input "$tmp/pp.ndjson" "$pp"
python3 - "$pp" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/_delta_log/*.json"):
    acts = [json.loads(l) for l in open(p)]
    for a in acts:
        if "add" in a: a["add"].pop("stats", None)
    open(p, "w").write("".join(json.dumps(a) + "\n" for a in acts))
PY
skipped() { "$deltac" scan --stats --format count --filter "$1" "$pp" 2>&1 >/dev/null | python3 -c "import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])['files_skipped'])"; }
check "prune: ts >= 2024-01-05 skips the three days before 01-04" test "$(skipped "ts >= '2024-01-05T00:00:00Z'")" = 3
check "prune: ts = 01-03 10:00 reads 01-02..01-04 only" test "$(skipped "ts = '2024-01-03T10:00:00Z'")" = 3
check "prune: ts < 2024-01-02 skips 01-05 and 02-09" test "$(skipped "ts < '2024-01-02'")" = 2
check "prune: ts > 2024-01-31 (month bound) skips January" test "$(skipped "ts > '2024-01-31T12:00:00Z'")" = 4
check "prune: rows are those of the filter" test "$(rows "$pp" "ts >= '2024-01-03'" | wc -l)" = 3

# --- copies of the shared tables --------------------------------------------------------------
cp -r "$T/delta-rs.checkpoint-v2-table" "$tmp/c1" && chmod -R u+w "$tmp/c1"
rows "$tmp/c1" >"$tmp/c1.before"
check "checkpoint-v2-table: 44 rows, high-water mark 44" test "$(wc -l <"$tmp/c1.before")/$(hwm "$tmp/c1" id)" = 44/44
printf '%s\n' '{"name":"n1","created_at":"2025-01-01T00:00:00Z"}' '{"name":"n2"}' >"$tmp/a.ndjson"
run write --input "$tmp/a.ndjson" "$tmp/c1"
check "checkpoint-v2-table: high-water mark 46" test "$(hwm "$tmp/c1" id)" = 46
{ cat "$tmp/c1.before"; echo '{"created_at":"2025-01-01T00:00:00.000000Z","id":45,"name":"n1"}'; echo '{"created_at":null,"id":46,"name":"n2"}'; } | sort >"$tmp/c1.want"
check "checkpoint-v2-table: old rows plus ours" test "$(rows "$tmp/c1")" = "$(cat "$tmp/c1.want")"
expect_error "does not allow explicit values" write --input <(echo '{"id":1,"name":"dup"}') "$tmp/c1"

cp -r "$T/delta-rs.issue-2152" "$tmp/c2" && chmod -R u+w "$tmp/c2"
printf '%s\n' '{"TXT_DateKey":"a"}' '{"TXT_DateKey":"b"}' >"$tmp/b.ndjson"
run write --input "$tmp/b.ndjson" "$tmp/c2"
want_rows "issue-2152 (writer 6, no high-water mark yet): from start" "$tmp/c2" '{"ID_D_DATE":1,"TXT_DateKey":"a"}' '{"ID_D_DATE":2,"TXT_DateKey":"b"}'
check "issue-2152: high-water mark 2" test "$(hwm "$tmp/c2" ID_D_DATE)" = 2

cp -r "$T/delta.spark-resources.dbr_8_1_generated_columns" "$tmp/c3" && chmod -R u+w "$tmp/c3"
printf '%s\n' '{"c1":1}' '{"c1":null}' '{"c1":5,"c2":6}' >"$tmp/c.ndjson"
run write --input "$tmp/c.ndjson" "$tmp/c3"
want_rows "dbr_8_1_generated_columns: c2 = c1 + 1" "$tmp/c3" '{"c1":1,"c2":2}' '{"c1":null,"c2":null}' '{"c1":5,"c2":6}'
expect_error "generated column c2: row 1 has 5, but its expression c1 + 1 gives 3" write --input <(echo '{"c1":2,"c2":5}') "$tmp/c3"
run merge --source <(echo '{"c1":1}') --on "t.c1 = s.c1" --when-matched-update "c1 = 7" "$tmp/c3"
want_rows "dbr_8_1_generated_columns: merge update recomputes" "$tmp/c3" '{"c1":7,"c2":8}' '{"c1":null,"c2":null}' '{"c1":5,"c2":6}'

# writer version 2: the metadata keys are inert (the features are off), the columns plain
cp -r "$T/delta.spark-resources.dbr_8_0_non_generated_columns" "$tmp/c4" && chmod -R u+w "$tmp/c4"
check "non-generated (writer 2): no rows before" test -z "$(rows "$tmp/c4")"
run write --input <(echo '{"c1":1,"c2":100}') "$tmp/c4"
want_rows "non-generated (writer 2): our row as given" "$tmp/c4" '{"c1":1,"c2":100}'
cp -r "$T/delta.spark-resources.identity_test_written_by_version_5" "$tmp/c5" && chmod -R u+w "$tmp/c5"
run write --input <(echo '{"id":100,"part":9,"value":"v"}') "$tmp/c5"
want_rows "identity metadata at writer 2: a plain column" "$tmp/c5" '{"id":1,"part":1,"value":"one"}' '{"id":2,"part":2,"value":"two"}' '{"id":4,"part":3,"value":"three"}' '{"id":100,"part":9,"value":"v"}'

# --- racing identity writers: each commit moves the high-water mark, so a loser conflicts -------
r=$tmp/race
run create --schema '{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.allowExplicitInsert":false}},{"name":"w","type":"integer","nullable":true,"metadata":{}}]}' "$r"
: >"$tmp/race.log"
for w in 1 2 3; do
  ( for i in 1 2 3 4; do printf '{"w":%d}\n{"w":%d}\n' "$w" "$w" >"$tmp/race$w.ndjson"; "$deltac" write --input "$tmp/race$w.ndjson" "$r" >>"$tmp/race.log" 2>&1; done ) &
done
wait
okw=$(grep -c '^write: version' "$tmp/race.log")
check "racing: failures are conflicts" test "$(grep -v '^write: version' "$tmp/race.log" | grep -vc 'conflict\|concurrent')" = 0
check "racing: every committed row once, ids distinct" test "$(rows "$r" | python3 -c "import json,sys; ids=[json.loads(l)['id'] for l in sys.stdin]; print(len(ids), len(set(ids)))")" = "$((okw * 2)) $((okw * 2))"
check "racing: ids 1..n, high-water mark n" test "$(rows "$r" | python3 -c "import json,sys; ids=sorted(json.loads(l)['id'] for l in sys.stdin); print(ids == list(range(1, len(ids) + 1)), ids[-1])")" = "True $(hwm "$r" id)"

finish generated_identity
