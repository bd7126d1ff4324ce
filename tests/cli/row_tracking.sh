#!/usr/bin/env bash
# Row tracking end to end, on a table with copy-on-write DML, one with
# deletion vectors, one with column mapping and one with change data feed: create with
# delta.enableRowTracking, append, UPDATE, MERGE (update + insert), DELETE,
# OPTIMIZE. After each step, per key column: every surviving row keeps its
# _row_id, ids are unique, new rows get ids above the previous high-water
# mark, changed rows get the step's commit version and the others keep
# theirs. The materialized columns stay hidden; a checkpoint carries
# baseRowId/defaultRowCommitVersion (the table reads the same from it alone).
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
# "k id version" per row, sorted by k
# (CSV lines end in CRLF)
csv() { "$deltac" scan --format csv "$@" | tr -d '\r'; }
ids() { csv --row-tracking --columns k "$1" | tail -n +2 | tr , ' ' | sort -n; }
hwm() { grep -ho 'rowIdHighWaterMark[^0-9]*[0-9]*' "$1"/_delta_log/*.json | tail -1 | grep -o '[0-9]*$'; }

# check NAME TABLE VERSION "CHANGED KEYS" "NEW KEYS": compare with $tmp/prev
check() {
  local name=$1 t=$2 v=$3 changed=" $4 " new=" $5 " old_hwm=$6
  ids "$t" >"$tmp/cur"
  local n uniq
  n=$(wc -l <"$tmp/cur"); uniq=$(cut -d' ' -f2 "$tmp/cur" | sort -u | wc -l)
  expect_eq "$name: unique row ids" "$uniq" "$n"
  local errs
  errs=$(join "$tmp/prev" "$tmp/cur" | awk -v changed="$changed" -v v="$v" '
    { if ($2 != $4) print "row " $1 " changed id " $2 " -> " $4
      if (index(changed, " " $1 " ")) { if ($5 != v) print "row " $1 " changed but has version " $5 }
      else if ($3 != $5) print "row " $1 " copied but version " $3 " -> " $5 }')
  expect_eq "$name: surviving rows" "$errs" ""
  errs=$(join -v 2 "$tmp/prev" "$tmp/cur" | awk -v new="$new" -v v="$v" -v h="$old_hwm" '
    { if (!index(new, " " $1 " ")) print "unexpected row " $1
      else if ($2 <= h) print "new row " $1 " id " $2 " not above " h
      else if ($3 != v) print "new row " $1 " version " $3 }')
  expect_eq "$name: new rows" "$errs" ""
  cp "$tmp/cur" "$tmp/prev"
}

for i in 1 2 3 4 5 6; do printf '{"k":%d,"v":"a%d"}\n' $i $i; done >"$tmp/in0.ndjson"
printf '{"k":7,"v":"a7"}\n{"k":8,"v":"a8"}\n' >"$tmp/in1.ndjson"
printf '{"k":3,"v":"m3"}\n{"k":20,"v":"m20"}\n' >"$tmp/src.ndjson"

for kind in cow dv cm cdf; do
  t="$tmp/t_$kind"
  props=(--property delta.enableRowTracking=true)
  nodv=(--no-deletion-vectors)
  case $kind in
    dv) props+=(--property delta.enableDeletionVectors=true); nodv=() ;;
    cm) props+=(--property delta.columnMapping.mode=name) ;;
    cdf) props+=(--property delta.enableChangeDataFeed=true) ;;
  esac
  run write "${props[@]}" --input "$tmp/in0.ndjson" "$t" || continue
  : >"$tmp/prev"
  check "$kind create" "$t" 0 "" "1 2 3 4 5 6" -1
  grep -q '"writerFeatures":\[[^]]*"rowTracking"' "$t/_delta_log/00000000000000000000.json" &&
    grep -q '"domainMetadata"' "$t/_delta_log/00000000000000000000.json" && ok || bad "$kind: protocol"
  grep -q 'materializedRowIdColumnName":"_row-id-col-' "$t/_delta_log/00000000000000000000.json" && ok ||
    bad "$kind: materialized column names"
  h=$(hwm "$t"); expect_eq "$kind: first high-water mark" "$h" 5
  run write --input "$tmp/in1.ndjson" "$t" && check "$kind append" "$t" 1 "" "7 8" "$h"
  h=$(hwm "$t")
  run update "${nodv[@]}" --set "v = 'u'" --where "k = 2" "$t" && check "$kind update" "$t" 2 "2" "" "$h"
  h=$(hwm "$t")
  run merge --source "$tmp/src.ndjson" --on "t.k = s.k" --when-matched-update-all --when-not-matched-insert-all \
    "${nodv[@]}" "$t" && check "$kind merge" "$t" 3 "3" "20" "$h"
  h=$(hwm "$t")
  run delete "${nodv[@]}" --where "k = 5" "$t" && grep -v '^5 ' "$tmp/prev" >"$tmp/p2" && mv "$tmp/p2" "$tmp/prev" &&
    check "$kind delete" "$t" 4 "" "" "$h"
  if [ $kind = dv ]; then
    # a DV-only change re-adds the file with its ids
    grep -q '"deletionVector".*"baseRowId"' "$t/_delta_log/00000000000000000004.json" && ok || bad "dv: re-add ids"
  fi
  if [ $kind = cdf ]; then
    # change data has the table's columns only
    expect_eq "cdf: change data header" "$("$deltac" changes --from 1 --format csv "$t" | head -1 | tr -d '\r')" \
      "k,v,_change_type,_commit_version,_commit_timestamp"
    expect_eq "cdf: changes" "$("$deltac" changes --from 2 --to 4 --format count "$t")" 6
  fi
  h=$(hwm "$t")
  run optimize "$t" && check "$kind optimize" "$t" 5 "" "" "$h"
  expect_eq "$kind: files after optimize" "$("$deltac" files --format count "$t")" 1
  grep -qF '"tags":{"delta.rowTracking.preserved":"true"}' "$t/_delta_log/00000000000000000002.json" && ok ||
    bad "$kind: update commitInfo tags"
  # every add of every commit has its ids
  adds=$(cat "$t"/_delta_log/*.json | grep -c '"add"'); stamped=$(cat "$t"/_delta_log/*.json | grep '"add"' |
    grep -c '"baseRowId":[0-9]*,"defaultRowCommitVersion":[0-9]*')
  expect_eq "$kind: adds with row ids" "$stamped" "$adds"
  # hidden: no materialized column in scan, schema or a plain CSV header
  expect_eq "$kind: scan header" "$(csv "$t" | head -1)" "k,v"
  "$deltac" schema --format json "$t" | grep -q '_row-id-col' && bad "$kind: schema shows materialized" || ok
  # a checkpoint keeps baseRowId/defaultRowCommitVersion: the table reads the same from it alone
  run checkpoint "$t"
  cp -r "$t" "$tmp/cp_$kind"
  rm "$tmp/cp_$kind"/_delta_log/0000000000000000000[0-4].json
  expect_eq "$kind: from the checkpoint" "$(ids "$tmp/cp_$kind" | md5sum)" "$(ids "$t" | md5sum)"
done

# rows a --replace-where overwrite copies get fresh ids: the commit says so
t="$tmp/t_rw"
run write --property delta.enableRowTracking=true --input "$tmp/in0.ndjson" "$t"
printf '{"k":1,"v":"n"}\n' >"$tmp/rw.ndjson"
run write --mode overwrite --replace-where "k <= 2" --input "$tmp/rw.ndjson" "$t"
grep -qF '"tags":{"delta.rowTracking.preserved":"false"}' "$t/_delta_log/00000000000000000001.json" && ok ||
  bad "replace-where: preserved tag"

# a shared table written by Databricks: ids from baseRowId
lc="$T/delta-rs.table_with_liquid_clustering"
expect_eq "liquid table row ids" "$(csv --row-tracking "$lc" | tail -n +2 |
  awk -F, '$1 != $2 || $3 != 0' | wc -l)" 0
expect_eq "liquid table rows" "$("$deltac" scan --row-tracking --format count "$lc")" 10
# `deltac files` shows each file's baseRowId and defaultRowCommitVersion, as the log has them
expect_eq "files: base_row_id and default_row_commit_version" \
  "$("$deltac" files --format ndjson "$lc" | python3 -c '
import json, sys
print(sorted((r["path"], r["base_row_id"], r["default_row_commit_version"]) for r in map(json.loads, sys.stdin)))')" \
  "$(cat "$lc"/_delta_log/*.json | python3 -c '
import json, sys
adds = [json.loads(l)["add"] for l in sys.stdin if "\"add\"" in l]
print(sorted((a["path"], a.get("baseRowId"), a.get("defaultRowCommitVersion")) for a in adds))')"
finish row_tracking
