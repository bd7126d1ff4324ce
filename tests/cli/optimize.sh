#!/usr/bin/env bash
# deltac optimize end to end: on partitioned and unpartitioned tables, with
# deletion vectors (purged), change data feed (no change data, empty feed
# over the optimize version) and column mapping: the rows after equal the
# rows before, the file count drops, every older version reads as before,
# the log has dataChange=false adds/removes and an OPTIMIZE commitInfo.
# Z-order on (x, y): rows kept, and point filters skip more files than
# before. --where on a partition column, no-ops, errors, progress bar.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
# the rows (every column) as a digest of the sorted CSV lines; plain shell
# tools, since starting python is slow on a loaded machine
rows() { "$deltac" scan --format csv "$@" | sort | md5sum; }
nfiles() { "$deltac" files --format count "$1"; }
latest() { ls "$1/_delta_log" | grep -c '\.json$'; }

abc=(a b c)
for b in 0 1 2 3; do
  for i in $(seq $((b * 10)) $((b * 10 + 9))); do
    printf '{"id": %d, "p": "%s", "v": "x%d"}\n' $i ${abc[$((i % 3))]} $i
  done >"$tmp/in$b.ndjson"
done
logchecks=()

for combo in yes_dv no_dv yes_cdf yes_cm no_plain; do
  part=${combo%_*} kind=${combo#*_}
  name="t_$combo"; t="$tmp/$name"
  args=(--schema 'id long, p string, v string')
  [ $part = yes ] && args+=(--partition-by p)
  case $kind in
    dv) args+=(--property delta.enableDeletionVectors=true) ;;
    cdf) args+=(--property delta.enableChangeDataFeed=true) ;;
    cm) args+=(--property delta.columnMapping.mode=name) ;;
  esac
  run write "${args[@]}" --input "$tmp/in0.ndjson" "$t" || continue
  for b in 1 2 3; do run write --input "$tmp/in$b.ndjson" "$t" || continue 2; done
  [ $kind = dv ] && { run delete --where "id = 1 OR id = 5 OR id = 9 OR id = 13 OR id = 17 OR id = 21 OR id = 25 OR
    id = 29 OR id = 33 OR id = 37" "$t" || continue; }
  v_before=$(($(latest "$t") - 1))
  declare -A old=()
  for v in $(seq 0 $v_before); do old[$v]=$(rows --version $v "$t"); done
  before=$(nfiles "$t")
  run optimize "$t" || continue
  grep -q "optimize: version $((v_before + 1)):" "$tmp/out" && ok || bad "$name: $(cat "$tmp/out")"
  after=$(nfiles "$t")
  [ "$after" -lt "$before" ] && ok || bad "$name: $before files before, $after after"
  want=$([ $part = yes ] && echo 3 || echo 1)
  expect_eq "$name files after" "$after" "$want"
  expect_eq "$name rows" "$(rows "$t")" "${old[$v_before]}"
  for v in $(seq 0 $v_before); do expect_eq "$name v$v" "$(rows --version $v "$t")" "${old[$v]}"; done
  expect_eq "$name deleted rows gone" "$("$deltac" scan --format count "$t")" \
    "$([ $kind = dv ] && echo 30 || echo 40)"
  logchecks+=("$t" $((v_before + 1)) $kind)
  if [ $kind = cdf ]; then
    expect_eq "$name feed of the optimize" \
      "$("$deltac" changes --from $((v_before + 1)) --to $((v_before + 1)) --format count "$t")" 0
    [ -z "$(ls "$t/_change_data" 2>/dev/null)" ] && ok || bad "$name: _change_data written"
  fi
  if [ $kind = cm ]; then
    "$deltac" parquet schema "$(find "$t" -name '*.parquet' -newer "$t/_delta_log/00000000000000000003.json" | head -1)" |
      grep -q "col-" && ok || bad "$name: rewritten file without physical column names"
  fi
  # a second optimize has nothing to do
  run optimize "$t" && { grep -q "nothing to compact" "$tmp/out" && ok || bad "$name noop: $(cat "$tmp/out")"; }
  expect_eq "$name noop commits" "$(latest "$t")" $((v_before + 2))
  unset old
done
# the optimize commits of all tables above, in one python run
python3 - "${logchecks[@]}" <<'PY' || bad "optimize log checks"
import json, os, sys
args = sys.argv[1:]
for i in range(0, len(args), 3):
    t, v, kind = args[i], int(args[i + 1]), args[i + 2]
    acts = [json.loads(l) for l in open(os.path.join(t, "_delta_log", "%020d.json" % v))]
    ci = [a["commitInfo"] for a in acts if "commitInfo" in a][0]
    assert ci["operation"] == "OPTIMIZE", ci
    m = ci["operationMetrics"]
    adds = [a["add"] for a in acts if "add" in a]
    rems = [a["remove"] for a in acts if "remove" in a]
    assert adds and rems and all(not x["dataChange"] for x in adds + rems), acts
    assert int(m["numAddedFiles"]) == len(adds) and int(m["numRemovedFiles"]) == len(rems), m
    assert int(m["numAddedBytes"]) == sum(a["size"] for a in adds), m
    assert int(m["numRemovedBytes"]) == sum(r["size"] for r in rems), m
    assert not any("cdc" in a for a in acts), t + ": optimize wrote change data"
    assert all(a.get("deletionVector") is None for a in adds), t + ": a DV survived"
    if kind == "dv": assert int(m["numDeletionVectorsRemoved"]) > 0, m
print("log checks of %d optimize commits" % (len(args) // 3))
PY

# --where on a partition column compacts only that partition
t="$tmp/where"
run write --schema 'id long, p string, v string' --partition-by p --input "$tmp/in0.ndjson" "$t"
run write --input "$tmp/in1.ndjson" "$t"
run optimize --where "p = 'a'" "$t"
expect_eq "where: files" "$("$deltac" files --format csv "$t" | grep -o 'p=[abc]/' | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
  " 1 p=a/; 2 p=b/; 2 p=c/;"
grep -qF '"predicate":"[\"p = '"'a'"'\"]"' "$t/_delta_log/00000000000000000002.json" && ok || bad "where: predicate parameter"
# files at or above the target size are left alone
t="$tmp/big"
run write --schema 'id long, p string, v string' --input "$tmp/in0.ndjson" "$t"
run write --input "$tmp/in1.ndjson" "$t"
run optimize --target-size 100 "$t" && { grep -q "nothing to compact" "$tmp/out" && ok || bad "target: $(cat "$tmp/out")"; }

# Z-order: 8 appends of random points; a point filter skips more files after
for b in 0 1 2 3 4 5 6 7; do
  awk -v b=$b 'BEGIN { srand(7 + b); for (i = 0; i < 250; i++)
    printf "{\"id\": %d, \"x\": %d, \"y\": %d, \"s\": \"k%03d\"}\n", b*250+i, int(rand()*1000), int(rand()*1000), int(rand()*1000) }' >"$tmp/z$b.ndjson"
done
t="$tmp/z"
for b in 0 1 2 3 4 5 6 7; do run write --schema 'id long, x long, y long, s string' --input "$tmp/z$b.ndjson" "$t"; done
# files skipped by 10 point filters, summed
skipped() {
  local n=0
  for q in 17 123 250 333 480 512 640 777 901 990; do
    s=$("$deltac" plan --filter "x = $q AND y = $(( (q * 7) % 1000 ))" --stats "$t" 2>&1 >/dev/null |
        grep -o '"files_skipped":[0-9]*' | cut -d: -f2)
    n=$((n + s))
  done
  echo $n
}
ids() { rows "$@"; }
before_ids=$(ids "$t"); before_skip=$(skipped)
run optimize --zorder-by x,y --target-size 4K "$t"
after_skip=$(skipped)
expect_eq "zorder rows" "$(ids "$t")" "$before_ids"
expect_eq "zorder v7 rows" "$(ids --version 7 "$t")" "$before_ids"
[ "$after_skip" -gt $((before_skip + 20)) ] && ok || bad "zorder: files skipped by point filters $before_skip before, $after_skip after"
echo "zorder: files skipped by 10 point filters: $before_skip before, $after_skip after ($("$deltac" files --format count "$t") files)"
grep -qF '"zOrderBy":"[\"x\",\"y\"]"' "$t/_delta_log/00000000000000000008.json" && ok || bad "zorder: zOrderBy parameter"
# Z-order on a string and an integer column
run optimize --zorder-by s,id --target-size 4K "$t"
expect_eq "zorder s,id rows" "$(ids "$t")" "$before_ids"

# progress bar: only when asked for (stderr is not a terminal here)
run write --input "$tmp/z0.ndjson" "$t"
"$deltac" optimize "$t" >/dev/null 2>"$tmp/err"
[ ! -s "$tmp/err" ] && ok || bad "progress printed without a terminal: $(cat "$tmp/err")"
run write --input "$tmp/z1.ndjson" "$t"
DELTAC_PROGRESS=always "$deltac" optimize "$t" >/dev/null 2>"$tmp/err"
grep -q "files" "$tmp/err" && ok || bad "no progress bar with DELTAC_PROGRESS=always"
# on a real terminal (script gives the command a pseudo-terminal), the bar is drawn and wiped
if command -v script >/dev/null; then
  run write --input "$tmp/z2.ndjson" "$t"
  script -qec "'$deltac' optimize '$t'" /dev/null >"$tmp/tty" 2>&1
  grep -q "optimize rewrite \[#*\.*\] [0-9]*/2 files" "$tmp/tty" && grep -q "optimize: version" "$tmp/tty" && ok ||
    bad "no progress bar on a terminal: $(cat -v "$tmp/tty")"
fi

# errors
expect_error "partition column" optimize --zorder-by p "$tmp/where"
expect_error "no column nope" optimize --zorder-by nope "$tmp/z"
expect_error "--where" optimize --where "nope = 1" "$tmp/z"
expect_error "not a Delta table" optimize "$tmp"
"$deltac" optimize --target-size 12Q "$tmp/z" 2>/dev/null; expect_eq "bad size exit" $? 2

finish optimize
