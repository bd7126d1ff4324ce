#!/usr/bin/env bash
# deltac vacuum end to end, on a partitioned table with deletion vectors and
# on a change-data-feed table (and the VACUUM START/END commits). Files are made to look old with touch -d, and
# removes with an old deletionTimestamp by editing it in the commits, never
# by sleeping. Checks: nothing young or needed is deleted; every version in
# effect at or after the cutoff reads exactly as before (time travel to each
# after vacuum); old untracked files in partition directories go, hidden
# ones ('_x', '.x', _delta_log) stay; dry-run lists exactly what a real run
# deletes; DV files of live files stay, replaced ones go; old _change_data
# files go; a retention below the table's is refused without --force.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
rows() { "$deltac" scan --format csv "$@" | sort | md5sum; }
latest() { echo $(($(ls "$1/_delta_log" | grep -c '\.json$') - 1)); }
# the table's files outside _delta_log, sorted
files_of() { (cd "$1" && find . -type f ! -path './_delta_log/*' | sed 's|^\./||' | sort); }
# ms since the epoch, N hours ago
hours_ago_ms() { echo $(( ($(date +%s) - $1 * 3600) * 1000 )); }

abc=(a b c)
for b in 0 1 2; do
  for i in $(seq $((b * 10)) $((b * 10 + 9))); do
    printf '{"id": %d, "p": "%s", "v": "x%d"}\n' $i ${abc[$((i % 3))]} $i
  done >"$tmp/in$b.ndjson"
done

# ---- a partitioned DV table: appends, DV deletes, an optimize, another delete
t="$tmp/dv"
# (DVs in files, not inline in the log: vacuum must keep and delete DV files)
run write --schema 'id long, p string, v string' --partition-by p --property delta.enableDeletionVectors=true \
  --property deltac.deletionVectors.inline=false --input "$tmp/in0.ndjson" "$t"
run write --input "$tmp/in1.ndjson" "$t"                      # v1
run delete --where "id = 1 OR id = 12" "$t"                   # v2: DVs
run optimize --where "p = 'b'" "$t"                           # v3: b compacted, its DV purged
run write --input "$tmp/in2.ndjson" "$t"                      # v4
run delete --where "id = 15 OR id = 21" "$t"                  # v5: new DVs (a's DV of v2 replaced)
last=$(latest "$t")
declare -A want=()
for v in $(seq 0 $last); do want[$v]=$(rows --version $v "$t"); done

# the default retention: everything is young, nothing goes
run vacuum --format table "$t" && { grep -q "deleted 0 files" "$tmp/out" && ok || bad "young vacuum: $(cat "$tmp/out")"; }
expect_error "below the table's delta.deletedFileRetentionDuration (168 hours)" vacuum --retain 10 "$t"
expect_error "not a Delta table" vacuum "$tmp"
"$deltac" vacuum --retain x "$t" 2>/dev/null; expect_eq "bad --retain exit" $? 2

# untracked files: old ones in the table and partition directories go,
# hidden ones and young ones stay
mkdir -p "$t/_hidden" "$t/.dot"
for f in p=a/junk.parquet stray.txt _hidden/old.parquet .dot/old.parquet p=b/.part.crc p=b/_tmp.parquet young.parquet; do
  echo x >"$t/$f"
done
# every existing file looks 10 days old (the log's timestamps stay), except young.parquet
find "$t" -type f ! -name young.parquet ! -path '*/_delta_log/*' -exec touch -d '10 days ago' {} +
run vacuum --format ndjson "$t"
expect_eq "untracked deleted" "$(grep -o '"path":"[^"]*"' "$tmp/out" | sort | tr '\n' ' ')" \
  '"path":"p=a/junk.parquet" "path":"stray.txt" '
for f in _hidden/old.parquet .dot/old.parquet p=b/.part.crc p=b/_tmp.parquet young.parquet; do
  [ -e "$t/$f" ] && ok || bad "vacuum deleted $f"
done
for v in $(seq 0 $last); do expect_eq "after untracked vacuum v$v" "$(rows --version $v "$t")" "${want[$v]}"; done

# removes of v2 and v3 look 200 hours old: with the default retention the
# files they removed go; the version in effect at the cutoff (v3) and every
# later one read as before
old_ts=$(hours_ago_ms 200)
for v in 2 3; do
  sed -i "s/\"deletionTimestamp\":[0-9]*/\"deletionTimestamp\":$old_ts/g" "$t/_delta_log/$(printf %020d $v).json"
done
before_files=$(files_of "$t")
run vacuum --dry-run --format ndjson "$t"
dry=$(grep -o '"path":"[^"]*"' "$tmp/out" | cut -d'"' -f4 | sort)
[ -n "$dry" ] && ok || bad "dry run listed nothing"
expect_eq "dry run deletes nothing" "$(files_of "$t")" "$before_files"
run vacuum --format ndjson "$t"
real=$(grep -o '"path":"[^"]*"' "$tmp/out" | cut -d'"' -f4 | sort)
expect_eq "dry run = real run" "$real" "$dry"
expect_eq "files gone" "$(comm -23 <(echo "$before_files") <(files_of "$t"))" "$real"
for v in $(seq 3 $last); do expect_eq "retained v$v" "$(rows --version $v "$t")" "${want[$v]}"; done
# what went: only files removed at v2/v3 (b's original files and the DV file of v2, now unreferenced)
echo "$real" | grep -q '^p=b/' && ok || bad "b's compacted files were not vacuumed: $real"
echo "$real" | grep -qv '^p=[abc]/\|^deletion_vector_' && bad "unexpected deletions: $real" || ok

# --retain 0 --force: only what the latest version needs stays
run vacuum --retain 0 --force --format table "$t"
expect_eq "latest after retain 0" "$(rows "$t")" "${want[$last]}"
live_dvs=$("$deltac" files --format ndjson "$t" | grep -c '"deletion_vector":"')
[ "$live_dvs" -gt 0 ] && ok || bad "no live DVs left to check"
expect_eq "one DV file left (the live one)" "$(files_of "$t" | grep -c '^deletion_vector_')" 1
expect_eq "data files = live files" "$(files_of "$t" | grep -c '\.parquet$' )" \
  "$(( $("$deltac" files --format count "$t") + 3 ))"   # + the hidden _hidden/old, .dot/old, p=b/_tmp
run vacuum --retain 0 --force --format table "$t" && { grep -q "deleted 0 files" "$tmp/out" && ok || bad "second vacuum: $(cat "$tmp/out")"; }

# ---- change data feed: old _change_data files go with the default retention
t="$tmp/cdf"
run write --schema 'id long, p string, v string' --property delta.enableChangeDataFeed=true --input "$tmp/in0.ndjson" "$t"
run delete --where "id < 3" "$t"
run update --set "v = 'y'" --where "id = 5" "$t"
n_cdc=$(ls "$t/_change_data" | wc -l)
[ "$n_cdc" -ge 2 ] && ok || bad "expected change data files, got $n_cdc"
want_cdf=$(rows "$t")
touch -d '10 days ago' "$t"/_change_data/* "$t"/*.parquet
run vacuum --format ndjson "$t"
expect_eq "cdc files vacuumed" "$(grep -c '"path":"_change_data/' "$tmp/out")" "$n_cdc"
expect_eq "cdf rows" "$(rows "$t")" "$want_cdf"
# VACUUM START (v3, with what it is about to delete) and VACUUM END (v4)
expect_eq "vacuum commits" "$(ls "$t/_delta_log" | grep -c json)" 5
python3 - "$t" "$n_cdc" <<'PY' || bad "VACUUM START/END commits"
import json, os, sys
t, n = sys.argv[1], sys.argv[2]
def ci(v):
    acts = [json.loads(l) for l in open(os.path.join(t, "_delta_log", "%020d.json" % v))]
    assert len(acts) == 1, acts  # commitInfo only
    return acts[0]["commitInfo"]
s, e = ci(3), ci(4)
assert s["operation"] == "VACUUM START" and s["operationMetrics"]["numFilesToDelete"] == n, s
assert s["operationParameters"]["defaultRetentionMillis"] == 604800000, s
assert e["operation"] == "VACUUM END" and e["operationMetrics"]["numDeletedFiles"] == n, e
assert e["operationParameters"]["status"] == "COMPLETED", e
PY
run history --format ndjson --limit 1 "$t" && { grep -q '"operation":"VACUUM END"' "$tmp/out" && ok || bad "history: $(cat "$tmp/out")"; }
# --no-log and dry runs commit nothing
run vacuum --no-log "$t" && run vacuum --dry-run "$t"
expect_eq "no-log commits" "$(ls "$t/_delta_log" | grep -c json)" 5

finish vacuum
