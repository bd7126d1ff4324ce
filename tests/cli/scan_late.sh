#!/usr/bin/env bash
# Late materialization in `deltac scan --filter`: the filter's columns are
# read first and the others only for batches where a row passes, whole data
# pages passed over undecoded. Over a file re-encoded with many small pages
# (v1 and v2 pages, with and without dictionaries), with nulls, a nested
# list and struct, and deletion vectors, every filter must return exactly
# the rows Python picks from the unfiltered scan, and --stats must show pages
# skipped for selective filters.
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/../lib.sh"

python3 - "$tmp/in.ndjson" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(6000):
        r = {"id": i, "grp": f"g{i % 7}", "val": None if i % 5 == 0 else i * 0.5,
             "name": None if i % 11 == 0 else f"name-{i}-{'x' * (i % 13)}",
             "tags": None if i % 17 == 0 else list(range(i % 4)),
             "s": None if i % 19 == 0 else {"a": i % 3, "b": f"b{i}"}, "flag": i % 3 == 0}
        f.write(json.dumps(r) + "\n")
PY

# check_table TABLE MIN_SKIP: every filter of FILTERS over TABLE against the
# rows Python picks from its unfiltered scan; filters marked 1 (they match
# rows only after the first 4096-row batch, so the other columns' pages of
# that batch are passed over before the next read) must have passed over at
# least MIN_SKIP pages. Pages after the last batch read are never reached,
# so they are not counted.
check_table() {
  local t=$1 min_skip=$2 k=0
  "$deltac" scan --format ndjson "$t" >"$tmp/all" || { bad "unfiltered scan of $t"; return; }
  : >"$tmp/cases"
  for c in "${FILTERS[@]}"; do
    IFS='|' read -r filter py sel <<<"$c"
    k=$((k + 1))
    if ! "$deltac" scan --format ndjson --stats --filter "$filter" "$t" >"$tmp/got.$k" 2>"$tmp/stats.$k"; then
      bad "$t '$filter': $(cat "$tmp/stats.$k")"; continue
    fi
    printf '%s\t%s\t%s\t%s\n' "$k" "$filter" "$py" "$sel" >>"$tmp/cases"
  done
  python3 - "$tmp" "$min_skip" <<'PY' >"$tmp/verdict"
import json, sys
tmp, min_skip = sys.argv[1], int(sys.argv[2])
canon = lambda rows: sorted(json.dumps(r, sort_keys=True) for r in rows)
rows = [json.loads(l) for l in open(f"{tmp}/all")]
for line in open(f"{tmp}/cases"):
    k, filt, py, sel = line.rstrip("\n").split("\t")
    want = canon(r for r in rows if eval(py, {}, {"r": r}))
    got = canon(json.loads(l) for l in open(f"{tmp}/got.{k}"))
    stats = json.load(open(f"{tmp}/stats.{k}"))
    if got != want:
        print(f"FAIL '{filt}': {len(got)} rows, expected {len(want)}")
    elif sel == "1" and stats["pages_skipped"] < min_skip:
        print(f"FAIL '{filt}': pages_skipped={stats['pages_skipped']}, expected >= {min_skip}")
    else:
        print("ok")
PY
  while read -r v; do
    if [ "$v" = ok ]; then ok; else bad "$t: ${v#FAIL }"; fi
  done <"$tmp/verdict"
}

FILTERS=(
  "id = 4321|r['id'] == 4321|1"
  "id >= 100 AND id < 130|100 <= r['id'] < 130|0"
  "id < 5 OR id > 5990|r['id'] < 5 or r['id'] > 5990|0"
  "id > 2000|r['id'] > 2000|0"
  "val IS NULL AND id > 5900|r['val'] is None and r['id'] > 5900|1"
  "grp = 'g3' AND id BETWEEN 3000 AND 3100|r['grp'] == 'g3' and 3000 <= r['id'] <= 3100|0"
  "name = 'name-7-xxxxxxx' OR id = 5000|r['name'] == 'name-7-xxxxxxx' or r['id'] == 5000|0"
  "flag AND id < 50|r['flag'] and r['id'] < 50|0"
  "id = -1|r['id'] == -1|0"
  "s.a = 2 AND id > 5950|r['s'] is not None and r['s']['a'] == 2 and r['id'] > 5950|1"
  "val > 2990|r['val'] is not None and r['val'] > 2990|1"
  "grp = 'g1'|r['grp'] == 'g1'|0"
)

for layout in "--page-rows 64" "--page-rows 50 --page-v2 --codec zstd" "--page-rows 100 --dictionary off --codec uncompressed" "--page-rows 37 --page-v2 --dictionary off"; do
  for dv in no yes; do
    t="$tmp/t_${layout//[^a-z0-9]/_}_$dv"
    args=()
    [ $dv = yes ] && args+=(--property delta.enableDeletionVectors=true)
    "$deltac" write "${args[@]}" --input "$tmp/in.ndjson" "$t" >/dev/null || { bad "write $t"; continue; }
    f=$(ls "$t"/*.parquet)
    # shellcheck disable=SC2086
    "$deltac" parquet copy $layout "$f" "$tmp/re.parquet" >/dev/null && mv "$tmp/re.parquet" "$f" || { bad "copy $layout"; continue; }
    if [ $dv = yes ]; then
      "$deltac" delete --where "grp = 'g4' OR (id >= 110 AND id < 120) OR id > 5995" "$t" >/dev/null ||
        { bad "delete"; continue; }
      grep -q deletionVector "$t"/_delta_log/*.json || bad "no deletion vector written"
    fi
    check_table "$t" 10
  done
done

# A file with one page per column (no page to pass over) still filters right.
t="$tmp/plain"
"$deltac" write --input "$tmp/in.ndjson" "$t" >/dev/null
check_table "$t" 0
# Stats: rows_skipped counts rows whose other columns were never decoded.
"$deltac" scan --format count --stats --filter "id = 4321" "$tmp/t___page_rows_64_no" >/dev/null 2>"$tmp/stats"
python3 - "$tmp/stats" <<'PY' && ok || bad "stats: $(cat "$tmp/stats")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["rows_read"] == 6000 and s["rows_returned"] == 1, s
assert 0 < s["rows_skipped"] < 6000 and s["pages_skipped"] > 0 and s["pages_read"] > 0, s
PY
finish scan_late
