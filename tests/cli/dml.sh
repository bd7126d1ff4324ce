#!/usr/bin/env bash
# deltac delete end to end: copy-on-write and deletion vectors, partitioned
# and not, change data feed on and off; the rows after each delete and the
# change feed of its version against the expected rows computed here; DV
# files parsed independently against the spec's byte layout; pruning leaves
# unmatched files untouched; commitInfo; errors.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
# expect ROWS_PY TABLE: scan rows equal the ids (python list) given
scan_ids() { "$deltac" scan --format ndjson "$1" | python3 -c "import json,sys; print(sorted(json.loads(l)['id'] for l in sys.stdin))"; }
# change rows of one version: sorted "type:id"
changes_of() {
  "$deltac" changes --from "$2" --to "$2" --format ndjson "$1" |
    python3 -c "import json,sys; print(sorted('%s:%s' % (r['_change_type'], r['id']) for r in map(json.loads, sys.stdin)))"
}
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }

python3 -c "
import json
for i in range(1, 31): print(json.dumps({'id': i, 'p': 'abc'[i % 3], 'v': 'x%d' % i}))" >"$tmp/in.ndjson"

# one table per combination; the same deletes on each
for part in yes no; do
for dv in yes no; do
for cdf in yes no; do
  name="t_${part}_${dv}_${cdf}"; t="$tmp/$name"
  args=(--schema 'id long, p string, v string')
  [ $part = yes ] && args+=(--partition-by p)
  [ $dv = yes ] && args+=(--property delta.enableDeletionVectors=true)
  [ $cdf = yes ] && args+=(--property delta.enableChangeDataFeed=true)
  run write "${args[@]}" --target-file-size 1 --input "$tmp/in.ndjson" "$t" || continue
  # 1: a few rows of several files
  run delete --where "id <= 4 OR id = 17" "$t" || continue
  expect_eq "$name v1 rows" "$(scan_ids "$t")" "$(python3 -c "print([i for i in range(1,31) if not (i<=4 or i==17)])")"
  # 2: overlapping the first delete (rows already deleted are not deleted again)
  run delete --where "id BETWEEN 3 AND 8" "$t" || continue
  expect_eq "$name v2 rows" "$(scan_ids "$t")" "$(python3 -c "print([i for i in range(1,31) if not (i<=8 or i==17)])")"
  # 3: a whole partition's worth / whole files
  run delete --where "p = 'a'" "$t" || continue
  want3=$(python3 -c "print([i for i in range(1,31) if not (i<=8 or i==17) and 'abc'[i%3] != 'a'])")
  expect_eq "$name v3 rows" "$(scan_ids "$t")" "$want3"
  # 4: nothing matches: no commit
  run delete --where "id > 1000" "$t" || continue
  grep -q "no rows matched" "$tmp/out" && ok || bad "$name no-op: $(cat "$tmp/out")"
  expect_eq "$name no-op version" "$(ls "$t/_delta_log" | grep -c '\.json$')" 4
  # time travel still sees the old rows
  expect_eq "$name v0 rows" "$("$deltac" scan --version 0 --format count "$t")" 30
  if [ $cdf = yes ]; then
    expect_eq "$name cdf v1" "$(changes_of "$t" 1)" "['delete:1', 'delete:17', 'delete:2', 'delete:3', 'delete:4']"
    expect_eq "$name cdf v2" "$(changes_of "$t" 2)" "['delete:5', 'delete:6', 'delete:7', 'delete:8']"
    expect_eq "$name cdf v3" "$(changes_of "$t" 3)" \
      "$(python3 -c "print(sorted('delete:%d' % i for i in range(1,31) if not (i<=8 or i==17) and 'abc'[i%3] == 'a'))")"
  fi
  # the log: commitInfo, DV or rewrite actions, cdc actions as expected
  python3 - "$t" $dv $cdf <<'PY' || bad "$name log checks"
import json, os, struct, sys, zlib
t, dv, cdf = sys.argv[1], sys.argv[2] == "yes", sys.argv[3] == "yes"
def acts(v):
    return [json.loads(l) for l in open(os.path.join(t, "_delta_log", "%020d.json" % v))]
for v in (1, 2, 3):
    a = acts(v)
    ci = a[0]["commitInfo"]
    assert ci["operation"] == "DELETE", ci
    assert json.loads(ci["operationParameters"]["predicate"])[0], ci
    m = ci["operationMetrics"]
    for k in ("numDeletedRows", "numRemovedFiles", "numAddedFiles", "numDeletionVectorsAdded", "numAddedChangeFiles"):
        assert k in m, (k, m)
    adds = [x["add"] for x in a if "add" in x]
    cdcs = [x["cdc"] for x in a if "cdc" in x]
    removes = [x["remove"] for x in a if "remove" in x]
    assert removes, "removes"
    if dv:
        assert not cdcs, "DV deletes need no cdc files"
        for ad in adds:
            d = ad["deletionVector"]
            assert json.loads(ad["stats"])["tightBounds"] is False
            assert any(r["path"] == ad["path"] for r in removes), "remove of the same path"

    else:
        for ad in adds:
            assert "deletionVector" not in ad
        if cdf and v != 3:
            assert cdcs and all(c["path"].startswith("_change_data/") and c["dataChange"] is False for c in cdcs), cdcs
            for c in cdcs: assert os.path.exists(os.path.join(t, c["path"])), c
        if not cdf:
            assert not cdcs
PY
  # every DV (inline, as these are a few rows each) read as the spec lays it out, without deltac
  if [ $dv = yes ]; then
    layout=$(python3 tests/cli/dv_layout.py "$t" 2>&1)
    case "$layout" in "inline "[1-9]*" file 0") ok ;; *) bad "$name DV layout: $layout" ;; esac
  fi
  # pruning: with partitions, the untouched partitions' files are the same paths as before
  if [ $part = yes ]; then
    "$deltac" files --format ndjson --version 2 "$t" | python3 -c "import json,sys; print(sorted(json.loads(l)['path'] for l in sys.stdin if 'p=a' not in l))" >"$tmp/before"
    "$deltac" files --format ndjson "$t" | python3 -c "import json,sys; print(sorted(json.loads(l)['path'] for l in sys.stdin))" >"$tmp/after"
    cmp -s "$tmp/before" "$tmp/after" && ok || bad "$name: files of other partitions changed by p = 'a'"
  fi
done; done; done

# pruning by stats: one file per id range, a delete touching one file skips the others
python3 -c "
import json
for i in range(1, 101): print(json.dumps({'id': i}))" >"$tmp/ids.ndjson"
run write --schema 'id long' --input "$tmp/ids.ndjson" "$tmp/pr"
for k in 1 2 3; do
  python3 -c "
import json
for i in range($k*100+1, $k*100+101): print(json.dumps({'id': i}))" >"$tmp/ids.ndjson"
  run write --input "$tmp/ids.ndjson" "$tmp/pr"
done
run delete --where "id = 250" "$tmp/pr"
grep -q "1 rows deleted, 1 files removed, 1 added, .* 3 of 4 files skipped" "$tmp/out" && ok || bad "stats pruning: $(cat "$tmp/out")"
expect_eq "pruned delete rows" "$("$deltac" scan --format count "$tmp/pr")" 399
"$deltac" history --format ndjson --limit 1 "$tmp/pr" | grep -q '"numFilesAfterSkipping":"1"' && ok || bad "metrics after skipping"

# a delete of every row of a DV table with a checkpoint in between
run write --schema 'id long, p string, v string' --property delta.enableDeletionVectors=true --input "$tmp/in.ndjson" "$tmp/ck"
run delete --where "id < 10" "$tmp/ck"
run checkpoint "$tmp/ck"
run delete --where "id >= 25" "$tmp/ck"
expect_eq "checkpoint + DV rows" "$(scan_ids "$tmp/ck")" "$(python3 -c "print(list(range(10,25)))")"
run delete --where "true" "$tmp/ck"
expect_eq "delete all" "$("$deltac" scan --format count "$tmp/ck")" 0

# --no-deletion-vectors on a DV table rewrites
run write --schema 'id long, p string, v string' --property delta.enableDeletionVectors=true --input "$tmp/in.ndjson" "$tmp/nodv"
run delete --no-deletion-vectors --where "id = 3" "$tmp/nodv"
grep -q " 0 deletion vectors" "$tmp/out" && ok || bad "--no-deletion-vectors: $(cat "$tmp/out")"
expect_eq "nodv rows" "$("$deltac" scan --format count "$tmp/nodv")" 29

# errors
expect_error "no column named nope" delete --where "nope = 1" "$tmp/nodv"
expect_error "--where" delete --where "id = " "$tmp/nodv"
expect_error "delete" delete --where "id = 1" "$tmp/missing"
"$deltac" delete "$tmp/nodv" >/dev/null 2>&1; expect_eq "no --where is a usage error" $? 2
run write --schema 'id long' --property delta.appendOnly=true --input "$tmp/ids.ndjson" "$tmp/ao"
expect_error "append-only" delete --where "id = 1" "$tmp/ao"

# ---------------------------------------------------------------------------------------------
# update: every combination; rows and change feed checked against Python's answer
for part in yes no; do
for dv in yes no; do
for cdf in yes no; do
  name="u_${part}_${dv}_${cdf}"; t="$tmp/$name"
  args=(--schema 'id long, p string, v string, n int, x double')
  [ $part = yes ] && args+=(--partition-by p)
  [ $dv = yes ] && args+=(--property delta.enableDeletionVectors=true)
  [ $cdf = yes ] && args+=(--property delta.enableChangeDataFeed=true)
  python3 -c "
import json
for i in range(1, 21): print(json.dumps({'id': i, 'p': 'abc'[i % 3], 'v': 'x%d' % i, 'n': i if i % 5 else None, 'x': i / 2}))" >"$tmp/u.ndjson"
  run write "${args[@]}" --target-file-size 1 --input "$tmp/u.ndjson" "$tmp/$name" || continue
  run update --set "v = v || '!', n = COALESCE(n, 0) * 10 + 1, x = CASE WHEN id > 15 THEN -x ELSE x + 1 END" \
    --where "id <= 3 OR id >= 15" "$t" || continue
  grep -q "9 rows updated" "$tmp/out" && ok || bad "$name update count: $(cat "$tmp/out")"
  "$deltac" scan --format ndjson "$t" >"$tmp/got"
  python3 - "$tmp/got" <<'PY' || bad "$name rows after update"
import json, sys
want = {}
for i in range(1, 21):
    r = {'id': i, 'p': 'abc'[i % 3], 'v': 'x%d' % i, 'n': i if i % 5 else None, 'x': i / 2}
    if i <= 3 or i >= 15:
        r['v'] += '!'; r['n'] = (r['n'] or 0) * 10 + 1; r['x'] = -r['x'] if i > 15 else r['x'] + 1
    want[i] = r
got = {r['id']: r for r in map(json.loads, open(sys.argv[1]))}
assert got == want, [(k, got.get(k), want[k]) for k in want if got.get(k) != want[k]][:3]
PY
  # the partition column too: rows move between partitions
  run update --set "p = 'z', id = id + 100" --where "id = 2" "$t" || continue
  expect_eq "$name moved row" "$("$deltac" scan --format ndjson --filter "p = 'z'" "$t" | python3 -c "import json,sys; print([json.loads(l)['id'] for l in sys.stdin])")" "[102]"
  expect_eq "$name row count" "$("$deltac" scan --format count "$t")" 20
  run update --set "v = 'never'" --where "id > 1000" "$t"
  grep -q "no rows matched" "$tmp/out" && ok || bad "$name no-op update"
  if [ $cdf = yes ]; then
    "$deltac" changes --from 1 --to 1 --format ndjson "$t" >"$tmp/ch"
    python3 - "$tmp/ch" <<'PY' || bad "$name update change feed"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
pre = sorted((r['id'], r['v']) for r in rows if r['_change_type'] == 'update_preimage')
post = sorted((r['id'], r['v'], r['n']) for r in rows if r['_change_type'] == 'update_postimage')
ids = [1, 2, 3, 15, 16, 17, 18, 19, 20]
ids = [i for i in range(1, 21) if i <= 3 or i >= 15]
assert len(rows) == 2 * len(ids), rows
assert pre == [(i, 'x%d' % i) for i in ids], pre
assert post == [(i, 'x%d!' % i, (i if i % 5 else 0) * 10 + 1) for i in ids], post
PY
    expect_eq "$name cdf of the partition move" "$(changes_of "$t" 2)" "['update_postimage:102', 'update_preimage:2']"
  fi
  "$deltac" history --format ndjson --limit 3 "$t" | grep -q '"operation":"UPDATE".*"numUpdatedRows":"9"' && ok || bad "$name history UPDATE"
done; done; done

# update errors
expect_error "no column named nope" update --set "nope = 1" "$tmp/nodv"
expect_error "no column named zz" update --set "v = zz" "$tmp/nodv"
expect_error "cannot assign a string" update --set "id = 'a'" "$tmp/nodv"
expect_error "expression" update --set "v = (1 +" "$tmp/nodv"
expect_error "assigned twice" update --set "v = 'a', v = 'b'" "$tmp/nodv"
expect_error "--where" update --set "v = 'a'" --where "id = " "$tmp/nodv"
"$deltac" update "$tmp/nodv" >/dev/null 2>&1; expect_eq "no --set is a usage error" $? 2
run update --set "id = CAST(v AS long), v = CAST(id AS string) || 'x'" --where "id = 5" "$tmp/nodv"
expect_eq "CAST" "$("$deltac" scan --format ndjson --filter "v = '5x'" "$tmp/nodv" | tr -d '\n')" '{"id":null,"p":"c","v":"5x"}'

# A DV of many scattered rows goes to a DV file; the layout is the spec's.
python3 -c "
import json
for i in range(400): print(json.dumps({'id': i, 'even': i % 2 == 0}))" >"$tmp/big.ndjson"
run write --schema 'id long, even boolean' --property delta.enableDeletionVectors=true --input "$tmp/big.ndjson" "$tmp/bigdv"
run delete --where "even AND id < 300" "$tmp/bigdv"
run delete --where "id = 1" "$tmp/bigdv"
expect_eq "big DV rows" "$("$deltac" scan --format count "$tmp/bigdv")" 249
expect_eq "big DV layout" "$(python3 tests/cli/dv_layout.py "$tmp/bigdv" 2>&1)" "inline 0 file 2"
ls "$tmp/bigdv"/deletion_vector_*.bin >/dev/null 2>&1 && ok || bad "no DV file written"

# UPDATE of a file that already has a deletion vector: the deleted rows stay deleted.
printf '{"id":1,"v":"a"}\n{"id":2,"v":"b"}\n{"id":3,"v":"c"}\n{"id":4,"v":"d"}\n' >"$tmp/dvu.ndjson"
run write --schema 'id long, v string' --property delta.enableDeletionVectors=true \
  --property delta.enableChangeDataFeed=true --input "$tmp/dvu.ndjson" "$tmp/dvu"
run delete --where "id = 2" "$tmp/dvu"
run update --set "v = 'X'" --where "id >= 3" "$tmp/dvu"
grep -q "2 rows updated" "$tmp/out" && ok || bad "update after DV delete count: $(cat "$tmp/out")"
expect_eq "update after DV delete" "$("$deltac" scan --format csv "$tmp/dvu" | tr -d '\r' | tail -n +2 | sort | tr '\n' ' ')" "1,a 3,X 4,X "
expect_eq "update after DV delete: change feed" "$(changes_of "$tmp/dvu" 2)" \
  "['update_postimage:3', 'update_postimage:4', 'update_preimage:3', 'update_preimage:4']"

# Division is Spark's: a double even for integers; into an integer column it truncates.
printf '{"i":7,"d":0.0,"l":0}\n{"i":-7,"d":0.0,"l":0}\n' >"$tmp/div.ndjson"
run write --schema 'i int, d double, l long' --input "$tmp/div.ndjson" "$tmp/div"
run update --set "d = i / 2, l = i / 2" "$tmp/div"
expect_eq "division" "$("$deltac" scan --format csv "$tmp/div" | tr -d '\r' | tail -n +2 | sort | tr '\n' ' ')" "-7,-3.5,-3 7,3.5,3 "
expect_error "does not fit the column" update --set "i = 1e300" "$tmp/div"
expect_error "does not fit the column" update --set "l = CAST('NaN' AS double)" "$tmp/div"

# Literals into date, timestamp and decimal columns (decimals rounded half up to the scale).
printf '{"id":1,"d":"2024-01-01","ts":"2024-01-01T00:00:00Z","amt":"1.50"}\n{"id":2,"d":null,"ts":null,"amt":null}\n' >"$tmp/typed.ndjson"
run write --schema 'id long, d date, ts timestamp, amt decimal(10,2)' --input "$tmp/typed.ndjson" "$tmp/typed"
run update --set "d = DATE '2024-05-02', ts = TIMESTAMP '2024-05-02 10:00:00', amt = 12.345" --where "id = 2" "$tmp/typed"
run update --set "amt = -0.005, d = '2025-12-31'" --where "id = 1" "$tmp/typed"
expect_eq "typed literals" "$("$deltac" scan --format csv "$tmp/typed" | tr -d '\r' | tail -n +2 | sort | tr '\n' ' ')" \
  "1,2025-12-31,2024-01-01T00:00:00.000000Z,-0.01 2,2024-05-02,2024-05-02T10:00:00.000000Z,12.35 "
expect_error "column d is date: cannot assign 'nope'" update --set "d = 'nope'" "$tmp/typed"
expect_error "column amt is decimal: cannot assign 123456789012" update --set "amt = 123456789012" "$tmp/typed"
expect_error "column d is date: cannot assign 5" update --set "d = 5" "$tmp/typed"

finish dml
