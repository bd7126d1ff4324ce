#!/usr/bin/env bash
# deltac restore end to end: restoring each older version (by number and by
# timestamp) of a partitioned table with deletion vectors, an optimize and
# a schema change reproduces that version's rows and schema; the RESTORE
# commit has the right actions and metrics and shows in history; restoring
# after vacuum deleted the old files is refused with nothing committed.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
rows() { "$deltac" scan --format csv "$@" | sort | md5sum; }
latest() { echo $(($(ls "$1/_delta_log" | grep -c '\.json$') - 1)); }
commit() { printf '%s/_delta_log/%020d.json' "$1" "$2"; }

abc=(a b c)
for b in 0 1 2; do
  for i in $(seq $((b * 10)) $((b * 10 + 9))); do
    printf '{"id": %d, "p": "%s", "v": "x%d"}\n' $i ${abc[$((i % 3))]} $i
  done >"$tmp/in$b.ndjson"
done
printf '{"id": 100, "p": "a", "v": "new", "w": 7}\n' >"$tmp/wide.ndjson"

t="$tmp/t"
run write --schema 'id long, p string, v string' --partition-by p --property delta.enableDeletionVectors=true \
  --input "$tmp/in0.ndjson" "$t"                              # v0
run write --input "$tmp/in1.ndjson" "$t"                      # v1
run delete --where "id = 1 OR id = 12 OR id = 13" "$t"        # v2: DVs
run optimize "$t"                                             # v3: compacted, DVs purged
run update --set "v = 'u'" --where "id < 5" "$t"              # v4
run write --schema-mode merge --input "$tmp/wide.ndjson" "$t" # v5: new column w
last=$(latest "$t")
declare -A want=() schema=()
for v in $(seq 0 $last); do
  want[$v]=$(rows --version $v "$t")
  schema[$v]=$("$deltac" schema --format json --version $v "$t")
done
# distinct versions really differ (so that a wrong restore cannot pass)
[ "${want[1]}" != "${want[2]}" ] && [ "${want[4]}" != "${want[5]}" ] && ok || bad "versions do not differ"

# every older version, by number; each restore is a new commit
for v in 1 2 4 0 3 5; do
  before=$(latest "$t")
  run restore --version $v "$t" || continue
  expect_eq "restore $v: commit" "$(latest "$t")" $((before + 1))
  expect_eq "restore $v: rows" "$(rows "$t")" "${want[$v]}"
  expect_eq "restore $v: schema" "$("$deltac" schema --format json "$t")" "${schema[$v]}"
  grep -q "restores version $v:" "$tmp/out" && ok || bad "restore $v output: $(cat "$tmp/out")"
done
# the commits are RESTORE, with the actions their metrics count
python3 - "$t" $((last + 1)) $(latest "$t") <<'PY' || bad "restore log checks"
import json, os, sys
t, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for v in range(first, last + 1):
    acts = [json.loads(l) for l in open(os.path.join(t, "_delta_log", "%020d.json" % v))]
    ci = [a["commitInfo"] for a in acts if "commitInfo" in a][0]
    assert ci["operation"] == "RESTORE", ci
    m = ci["operationMetrics"]
    adds = [a["add"] for a in acts if "add" in a]
    rems = [a["remove"] for a in acts if "remove" in a]
    assert int(m["numRestoredFiles"]) == len(adds) and int(m["numRemovedFiles"]) == len(rems), (v, m)
    assert all(x["dataChange"] for x in adds + rems), v
    assert "version" in ci["operationParameters"], ci
PY
run history --format ndjson --limit 1 "$t" && { grep -q '"operation":"RESTORE"' "$tmp/out" && ok || bad "history: $(cat "$tmp/out")"; }

# by timestamp: commit times set with touch -d, then restore to a moment
# between v1 and v2
for v in $(seq 0 $(latest "$t")); do touch -d @$((1700000000 + v * 100)) "$(commit "$t" $v)"; done
run restore --timestamp "2023-11-14T22:15:50Z" "$t"   # 1700000150: after v1 (…100), before v2 (…200)
expect_eq "restore by timestamp" "$(rows "$t")" "${want[1]}"
grep -q "restores version 1:" "$tmp/out" && ok || bad "timestamp restore output: $(cat "$tmp/out")"

# restore after vacuum: v0's files are gone, so is v0
run restore --version $last "$t"
run vacuum --retain 0 --force "$t"
n=$(latest "$t")
expect_error "version 0 cannot be restored" restore --version 0 "$t"
expect_eq "nothing committed" "$(latest "$t")" $n
expect_eq "table intact" "$(rows "$t")" "${want[$last]}"

# append-only tables: restoring a version with fewer files would remove some
a="$tmp/append"
run write --schema 'id long, p string, v string' --property delta.appendOnly=true --input "$tmp/in0.ndjson" "$a"
run write --input "$tmp/in1.ndjson" "$a"
expect_error "append-only" restore --version 0 "$a"
expect_eq "append-only: nothing committed" "$(latest "$a")" 1

# errors
expect_error "version" restore --version 999 "$t"
"$deltac" restore --version 1 --timestamp 2023-01-01 "$t" 2>/dev/null; expect_eq "both given" $? 2
"$deltac" restore "$t" 2>/dev/null; expect_eq "neither given" $? 2
expect_error "not a Delta table" restore --version 0 "$tmp"

finish restore
