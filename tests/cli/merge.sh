#!/usr/bin/env bash
# deltac merge end to end: an upsert with every clause kind (conditions,
# first matching clause wins), the rows and the commitInfo checked; sources
# in CSV, Parquet and a Delta table; column-mapped and partitioned targets;
# custom aliases; a no-op merge commits nothing; errors (several source rows
# for a target row, bad ON, unknown columns, bad source, bad clause order)
# leave the table as it was. The full DML x {CoW, DV} x {partitioned} x
# {CDF} matrix against DuckDB is tests/interop/dml_matrix.sh.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
# rows as sorted "id:v" (v of the table's column v)
rows() { "$deltac" scan --format ndjson "$1" | python3 -c "
import json,sys; print(' '.join('%s:%s' % (r['id'], r['v']) for r in sorted(map(json.loads, sys.stdin), key=lambda r: r['id'])))"; }
versions() { ls "$1/_delta_log" | grep -c '\.json$'; }

python3 -c "
import json
for i in range(1, 11): print(json.dumps({'id': i, 'p': 'ab'[i % 2], 'v': 'x%d' % i}))" >"$tmp/in.ndjson"
cat >"$tmp/src.ndjson" <<'J'
{"id":2,"p":"a","v":"DEL"}
{"id":3,"p":"b","v":"y3"}
{"id":4,"p":"a","v":"y4"}
{"id":11,"p":"b","v":"new11"}
{"id":12,"p":"a","v":"skip"}
J

for part in yes no; do
  t="$tmp/t_$part"
  args=(--schema 'id long, p string, v string' --target-file-size 1)
  [ $part = yes ] && args+=(--partition-by p)
  run write "${args[@]}" --input "$tmp/in.ndjson" "$t" || continue
  # delete when the source says so, update otherwise; insert all but 'skip';
  # target rows no source row has: id 9 and 10 deleted, id 1 updated
  run merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" \
    --when-matched-delete --if "s.v = 'DEL'" --when-matched-update "t.v = s.v || '!'" \
    --when-not-matched-insert-all --if "s.v <> 'skip'" \
    --when-not-matched-by-source-delete --if "t.id >= 9" \
    --when-not-matched-by-source-update "v = 'old'" --if "t.id = 1" || continue
  expect_eq "$part rows" "$(rows "$t")" "1:old 3:y3! 4:y4! 5:x5 6:x6 7:x7 8:x8 11:new11"
  grep -q "1 rows inserted, 3 updated, 3 deleted" "$tmp/out" && ok || bad "$part summary: $(cat "$tmp/out")"
  python3 - "$t" <<'PY' || bad "$part commitInfo"
import json, sys
ci = [json.loads(l) for l in open(sys.argv[1] + "/_delta_log/00000000000000000001.json") if '"commitInfo"' in l][0]["commitInfo"]
assert ci["operation"] == "MERGE", ci
p = ci["operationParameters"]
assert json.loads(p["predicate"]) == ["t.id = s.id"], p
assert json.loads(p["matchedPredicates"]) == [{"predicate": "s.v = 'DEL'", "actionType": "delete"}, {"actionType": "update"}], p
assert json.loads(p["notMatchedPredicates"]) == [{"predicate": "s.v <> 'skip'", "actionType": "insert"}], p
assert json.loads(p["notMatchedBySourcePredicates"]) == [{"predicate": "t.id >= 9", "actionType": "delete"},
                                                         {"predicate": "t.id = 1", "actionType": "update"}], p
m = ci["operationMetrics"]
assert (m["numSourceRows"], m["numTargetRowsInserted"], m["numTargetRowsUpdated"], m["numTargetRowsDeleted"],
        m["numTargetRowsMatchedDeleted"], m["numTargetRowsNotMatchedBySourceDeleted"]) == ("5", "1", "3", "3", "1", "2"), m
PY
  # a no-op: nothing matches, the insert's condition holds for no row
  n=$(versions "$t")
  run merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id AND s.id > 1000" --when-matched-delete \
    --when-not-matched-insert-all --if "s.id > 1000" || continue
  grep -q "nothing committed" "$tmp/out" && ok || bad "$part noop: $(cat "$tmp/out")"
  expect_eq "$part noop versions" "$(versions "$t")" "$n"
done

t="$tmp/t_no"
n=$(versions "$t")
# errors: exit 1, one line, the table unchanged
expect_error "matched 2 source rows" merge "$t" --source <(printf '{"id":3,"v":"a"}\n{"id":3,"v":"b"}\n') \
  --format ndjson --on "t.id = s.id" --when-matched-update-all
expect_error "deltac: merge: --on" merge "$t" --source "$tmp/src.ndjson" --on "t.id = " --when-matched-delete
# no equality (a nested-loop join): several source rows per target row still fail an update
expect_error "matched 3 source rows" merge "$t" --source "$tmp/src.ndjson" --on "t.id < s.id" --when-matched-update "v = s.v"
expect_error "nope" merge "$t" --source "$tmp/src.ndjson" --on "t.nope = s.id" --when-matched-delete
expect_error "no column named zz" merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" --when-matched-update "zz = 1"
expect_error "no column named s.zz" merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" --when-matched-update "v = s.zz"
expect_error "when not matched insert" merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" --when-not-matched-insert "v = t.v"
expect_error "only the last clause" merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" --when-matched-delete \
  --when-matched-update-all --if "s.id = 1"
expect_error "cannot open" merge "$t" --source "$tmp/missing.ndjson" --on "t.id = s.id" --when-matched-delete
printf '{"id":1\n' >"$tmp/broken.ndjson"
expect_error "broken.ndjson" merge "$t" --source "$tmp/broken.ndjson" --on "t.id = s.id" --when-matched-delete
printf '{"id":"x"}\n' >"$tmp/badtype.ndjson"
expect_error "id" merge "$t" --source "$tmp/badtype.ndjson" --on "t.id = s.id" --when-matched-delete
"$deltac" merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" >/dev/null 2>&1
expect_eq "no clause: usage" "$?" 2
"$deltac" merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" --if "s.id = 1" --when-matched-delete >/dev/null 2>&1
expect_eq "--if first: usage" "$?" 2
expect_eq "errors left the table" "$(versions "$t")" "$n"

# sources: CSV, Parquet (a table's data file), another Delta table; aliases
printf 'id,v\n5,csv5\n' >"$tmp/s.csv"
run merge "$t" --source "$tmp/s.csv" --on "t.id = s.id" --when-matched-update "v = s.v" &&
  expect_eq "csv source" "$(rows "$t" | tr ' ' '\n' | grep '^5:')" "5:csv5"
run write --input <(printf '{"id":6,"v":"delta6"}\n{"id":20,"v":"delta20"}\n') --format ndjson "$tmp/srctable" &&
  run merge "$t" --source "$tmp/srctable" --target-alias tgt --source-alias src --on "tgt.id = src.id" \
    --when-matched-update "tgt.v = src.v" --when-not-matched-insert "id = src.id, v = src.v || '+'" &&
  expect_eq "delta source" "$(rows "$t" | tr ' ' '\n' | grep -E '^(6|20):' | tr '\n' ' ')" "6:delta6 20:delta20+ "
cp "$(ls "$tmp"/srctable/*.parquet | head -n1)" "$tmp/s.parquet" &&
  run merge "$t" --source "$tmp/s.parquet" --on "t.id = s.id AND s.v = 'delta6'" --when-matched-update "v = 'pq'" &&
  expect_eq "parquet source" "$(rows "$t" | tr ' ' '\n' | grep -E '^(6|20):' | tr '\n' ' ')" "6:pq 20:delta20+ "

# unqualified names resolve to the side that has them; a name both have is ambiguous
printf '{"key":7,"val":"k7"}\n{"key":70,"val":"k70"}\n' >"$tmp/kv.ndjson"
run merge "$t" --source "$tmp/kv.ndjson" --on "id = key" --when-matched-update "v = val || CASE WHEN id > 5 THEN '>' ELSE '<' END" \
  --when-not-matched-insert "id = key, v = val" --if "val <> ''" &&
  expect_eq "unqualified" "$(rows "$t" | tr ' ' '\n' | grep -E '^(7|70):' | tr '\n' ' ')" "7:k7> 70:k70 "
expect_error "column id is ambiguous: write t.id or s.id" merge "$t" --source "$tmp/src.ndjson" --on "id = s.id" \
  --when-matched-delete

# pruning: three files (ids 1-10, 11-20, 21-30); source keys 5 and 25 span
# all three by min/max, but the middle file holds neither: it is not read
pr="$tmp/pr"
for k in 0 1 2; do
  python3 -c "
import json
for i in range($k * 10 + 1, $k * 10 + 11): print(json.dumps({'id': i, 'v': 'x%d' % i}))" >"$tmp/pr$k.ndjson"
  run write --schema 'id long, v string' --input "$tmp/pr$k.ndjson" "$pr" || break
done
printf '{"id":5,"v":"u5"}\n{"id":25,"v":"u25"}\n' >"$tmp/pr_src.ndjson"
run merge "$pr" --source "$tmp/pr_src.ndjson" --on "t.id = s.id" --when-matched-update-all &&
  { grep -q "2 updated.*1 of 3 files skipped" "$tmp/out" && ok || bad "pruning: $(cat "$tmp/out")"; }
# with a not-matched-by-source clause every file is read
run merge "$pr" --source "$tmp/pr_src.ndjson" --on "t.id = s.id" --when-not-matched-by-source-delete --if "t.id = 15" &&
  { grep -q "1 deleted.*0 of 2 files skipped" "$tmp/out" && ok || bad "nmbs reads all: $(cat "$tmp/out")"; }
expect_eq "pruning rows" "$(rows "$pr" | tr ' ' '\n' | grep -cE '^(5:u5|25:u25)$')" 2

# delta.targetFileSize cuts rewritten files (and bounds a rewrite's memory)
run write --schema 'id long, v string' --property delta.targetFileSize=1 --input "$tmp/pr0.ndjson" "$tmp/tfs" &&
  run merge "$tmp/tfs" --source "$tmp/pr_src.ndjson" --on "t.id = s.id" --when-matched-update-all &&
  { grep -q "1 updated.*1 files removed, 2 added" "$tmp/out" && ok || bad "targetFileSize: $(cat "$tmp/out")"; }

# column mapping (name mode): physical names differ from the logical ones
cm="$tmp/cm"
run write --schema 'id long, p string, v string' --partition-by p --property delta.columnMapping.mode=name \
  --property delta.enableDeletionVectors=true --input "$tmp/in.ndjson" "$cm" &&
  run merge "$cm" --source "$tmp/src.ndjson" --on "t.id = s.id" --when-matched-update-all --when-not-matched-insert-all &&
  expect_eq "column mapping rows" "$(rows "$cm")" "1:x1 2:DEL 3:y3 4:y4 5:x5 6:x6 7:x7 8:x8 9:x9 10:x10 11:new11 12:skip"
# a partition key: the other partition's files are not read (an exact IN-list)
printf '{"id":2,"p":"a","v":"pp"}\n' >"$tmp/pp.ndjson"
run merge "$cm" --source "$tmp/pp.ndjson" --on "t.id = s.id AND t.p = s.p" --when-matched-update-all &&
  { grep -qE "1 updated.*[1-9][0-9]* of [0-9]+ files skipped" "$tmp/out" && ! grep -q " 0 of " "$tmp/out" && ok ||
    bad "partition pruning: $(cat "$tmp/out")"; }
expect_eq "partition key merge" "$(rows "$cm" | tr ' ' '\n' | grep '^2:')" "2:pp"
finish merge
