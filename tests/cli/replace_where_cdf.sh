#!/usr/bin/env bash
# --replace-where on change-data-feed tables: the commit carries cdc files
# with every change (delete rows for the replaced rows, insert rows for the
# new ones), so `deltac changes` over the version shows exactly that and
# not the copied rows; the table's rows after it are right. Partitioned and
# not, files with deletion vectors, whole partitions replaced.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
scan_rows() { "$deltac" scan --format ndjson "$1" | python3 -c "import json,sys; print(sorted((r['id'], r['v']) for r in map(json.loads, sys.stdin)))"; }
changes_of() {
  "$deltac" changes --from "$2" --to "$2" --format ndjson "$1" |
    python3 -c "import json,sys; print(sorted('%s:%s:%s' % (r['_change_type'], r['id'], r['v']) for r in map(json.loads, sys.stdin)))"
}
# the version's actions: "adds removes cdcs"
counts() {
  python3 -c "
import json,sys
a=[json.loads(l) for l in open('$1/_delta_log/%020d.json' % $2)]
print(sum('add' in x for x in a), sum('remove' in x for x in a), sum('cdc' in x for x in a))"
}

python3 -c "
import json
for i in range(1, 21): print(json.dumps({'id': i, 'p': 'ab'[i % 2], 'v': i * 10}))" >"$tmp/in.ndjson"
printf '{"id":100,"p":"a","v":1}\n{"id":101,"p":"b","v":2}\n' >"$tmp/new.ndjson"

for part in yes no; do
  t="$tmp/t_$part"
  args=(--schema 'id long, p string, v long' --property delta.enableChangeDataFeed=true)
  [ $part = yes ] && args+=(--partition-by p)
  run write "${args[@]}" --input "$tmp/in.ndjson" "$t" || continue
  # 1: rows of files that keep others: deletes and inserts only, no copied rows
  run write --mode overwrite --replace-where "id <= 3 OR id >= 100" --input "$tmp/new.ndjson" "$t" || continue
  expect_eq "$part v1 changes" "$(changes_of "$t" 1)" "['delete:1:10', 'delete:2:20', 'delete:3:30', 'insert:100:1', 'insert:101:2']"
  expect_eq "$part v1 rows" "$(scan_rows "$t")" \
    "$(python3 -c "print(sorted([(i, i*10) for i in range(4, 21)] + [(100, 1), (101, 2)]))")"
  read -r adds removes cdcs <<<"$(counts "$t" 1)"
  [ "$cdcs" -ge 2 ] && [ "$removes" -ge 1 ] && ok || bad "$part v1 actions: $adds $removes $cdcs"
  grep -q '"numAddedChangeFiles"' "$t/_delta_log/00000000000000000001.json" && ok || bad "$part metrics"
  # the change data files hold _change_type
  f=$(python3 -c "
import json
for l in open('$t/_delta_log/00000000000000000001.json'):
    a = json.loads(l)
    if 'cdc' in a: print(a['cdc']['path']); break")
  "$deltac" parquet schema "$t/$f" | grep -q _change_type && ok || bad "$part cdc file schema"
  # 2: nothing written, rows removed (a replace with no input rows matching)
  printf '{"id":102,"p":"a","v":3}\n' >"$tmp/one.ndjson"
  run write --mode overwrite --replace-where "v >= 150 AND v <= 170 OR id = 102" --input "$tmp/one.ndjson" "$t" || continue
  expect_eq "$part v2 changes" "$(changes_of "$t" 2)" "['delete:15:150', 'delete:16:160', 'delete:17:170', 'insert:102:3']"
  # the whole history still reads: version 0 inserts, then the above
  expect_eq "$part all changes" "$("$deltac" changes --from 0 --format count "$t")" $((20 + 5 + 4))
done

# a whole partition replaced, and rows behind a deletion vector are not deleted twice
t="$tmp/t_dv"
run write --schema 'id long, p string, v long' --partition-by p --property delta.enableChangeDataFeed=true \
  --property delta.enableDeletionVectors=true --input "$tmp/in.ndjson" "$t"
run delete --where "id = 4" "$t"
run write --mode overwrite --replace-where "p = 'a'" --input <(printf '{"id":200,"p":"a","v":5}\n') --format ndjson "$t"
expect_eq "dv changes" "$(changes_of "$t" 2)" \
  "$(python3 -c "print(sorted(['delete:%d:%d' % (i, i*10) for i in range(2, 21, 2) if i != 4] + ['insert:200:5']))")"
expect_eq "dv rows" "$(scan_rows "$t")" "$(python3 -c "print(sorted([(i, i*10) for i in range(1, 21, 2)] + [(200, 5)]))")"

# written rows outside the predicate are still refused, nothing committed
expect_error "does not match --replace-where" write --mode overwrite --replace-where "id = 1" --input "$tmp/new.ndjson" "$tmp/t_yes"
expect_eq "refused: versions" "$(ls "$tmp/t_yes/_delta_log" | grep -c '\.json$')" 3

finish replace_where_cdf
