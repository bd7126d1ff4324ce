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
# Directories the deletions empty (partition directories, _change_data/ and
# its partitions) go too, deepest first, listed like files with a trailing
# '/', counted in numDeletedFiles; not ones holding a hidden file, nor ones
# modified within the retention window, never the root or _delta_log.
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

# ---- empty directories: two partition levels and _change_data/
t="$tmp/dirs"
printf '{"id":1,"p":"a","q":1}\n{"id":2,"p":"a","q":2}\n{"id":3,"p":"b","q":1}\n{"id":4,"p":"c","q":1}\n{"id":5,"p":"a","q":1}\n' \
  >"$tmp/dirs.ndjson"
run write --schema 'id long, p string, q long' --partition-by p,q --property delta.enableChangeDataFeed=true \
  --input "$tmp/dirs.ndjson" "$t"
run update --set "id = 10" --where "id = 1" "$t"
run delete --where "p = 'b'" "$t"
run delete --where "p = 'a' AND q = 2" "$t"
run delete --where "p = 'c'" "$t"
echo x >"$t/p=c/q=1/.keep.crc"   # hidden: p=c/q=1 (and so p=c) stay
want_dirs=$(rows "$t")
run vacuum --retain 0 --force --dry-run --format ndjson "$t"
dry=$(grep -o '"path":"[^"]*/"' "$tmp/out" | cut -d'"' -f4 | tr '\n' ' ')
expect_eq "dry run: empty directories, deepest first" "$dry" \
  "_change_data/p=a/q=1/ _change_data/p=a/q=2/ _change_data/p=a/ _change_data/p=b/q=1/ _change_data/p=b/ _change_data/p=c/q=1/ _change_data/p=c/ _change_data/ p=a/q=2/ p=b/q=1/ p=b/ "
[ -d "$t/p=b/q=1" ] && ok || bad "dry run removed a directory"
grep -q "would delete 8 files ([0-9]* bytes) and 11 empty directories" <("$deltac" vacuum --retain 0 --force --dry-run --format table "$t") \
  && ok || bad "dry run summary"
run vacuum --retain 0 --force --format ndjson "$t"
expect_eq "real run = dry run" "$(grep -o '"path":"[^"]*/"' "$tmp/out" | cut -d'"' -f4 | tr '\n' ' ')" "$dry"
expect_eq "directories left" "$(cd "$t" && find . -type d | sort | tr '\n' ' ')" \
  ". ./_delta_log ./p=a ./p=a/q=1 ./p=c ./p=c/q=1 "
expect_eq "rows after" "$(rows "$t")" "$want_dirs"
python3 - "$t" <<'PY' && ok || bad "VACUUM END counts directories"
import json, os, sys
log = os.path.join(sys.argv[1], "_delta_log")
last = sorted(f for f in os.listdir(log) if f.endswith(".json"))[-1]
ci = json.loads(open(os.path.join(log, last)).readline())["commitInfo"]
assert ci["operation"] == "VACUUM END", ci
# 8 files + 11 directories; listed: the root and 7 directories under each of it and _change_data
assert ci["operationMetrics"] == {"numDeletedFiles": "19", "numVacuumedDirectories": "16"}, ci
s = json.loads(open(os.path.join(log, "%020d.json" % (int(last[:20]) - 1))).readline())["commitInfo"]
assert s["operationMetrics"]["numFilesToDelete"] == "19", s
PY
# a directory modified within the retention window stays (a writer may be
# about to put a file there) until it is old
t="$tmp/young_dir"
run write --schema 'id long, p string' --partition-by p --input <(printf '{"id":1,"p":"x"}\n') "$t"
run write --mode overwrite --input <(printf '{"id":2,"p":"y"}\n') "$t"
sed -i "s/\"deletionTimestamp\":[0-9]*/\"deletionTimestamp\":$(hours_ago_ms 200)/g" "$t/_delta_log/$(printf %020d 1).json"
touch -d '10 days ago' "$t"/p=x/*.parquet
run vacuum --format ndjson "$t"
expect_eq "young directory: its old file goes, it stays" "$(grep -c '"path":"p=x/' "$tmp/out")/$(ls -A "$t/p=x" | wc -l)" "1/0"
touch -d '10 days ago' "$t/p=x"
run vacuum --format table "$t"
grep -q "deleted 0 files (0 bytes) and 1 empty directories" "$tmp/out" && ok || bad "old empty directory: $(cat "$tmp/out")"
[ ! -e "$t/p=x" ] && [ -d "$t/p=y" ] && ok || bad "p=x should be gone, p=y kept"

# ---- LITE: the candidates come from the log's removes, not a listing
t="$tmp/lite"
run write --schema 'id long, p string, v string' --partition-by p --property delta.enableDeletionVectors=true \
  --property deltac.deletionVectors.inline=false --input "$tmp/in0.ndjson" "$t"   # v0
run write --input "$tmp/in1.ndjson" "$t"                      # v1
run delete --where "id = 1 OR id = 12" "$t"                   # v2: DVs in files
run delete --where "id = 4" "$t"                              # v3: a's DV replaced
run optimize --where "p = 'b'" "$t"                           # v4: b compacted, its DV purged
run write --mode overwrite --input "$tmp/in2.ndjson" "$t"     # v5: everything removed
run restore --version 4 "$t"                                  # v6: v4's files live again
last=$(latest "$t")
declare -A want=()
for v in $(seq 0 $last); do want[$v]=$(rows --version $v "$t"); done
echo x >"$t/p=a/untracked.parquet"                            # never in the log: lite cannot see it
find "$t" -type f ! -path '*/_delta_log/*' -exec touch -d '10 days ago' {} +
old_ts=$(hours_ago_ms 200)
for v in 2 3 4 5; do
  sed -i "s/\"deletionTimestamp\":[0-9]*/\"deletionTimestamp\":$old_ts/g" "$t/_delta_log/$(printf %020d $v).json"
done
run vacuum --dry-run --format ndjson "$t"
full=$(grep -o '"path":"[^"/]*/\?[^"]*[^/]"' "$tmp/out" | cut -d'"' -f4 | sort)
run vacuum --lite --dry-run --format ndjson "$t"
lite=$(grep -o '"path":"[^"]*"' "$tmp/out" | cut -d'"' -f4 | sort)
[ -n "$lite" ] && ok || bad "lite dry run listed nothing"
expect_eq "lite = full, less the untracked file" "$lite" "$(echo "$full" | grep -v untracked)"
# v6 restored v4's files, which v5 removed long ago: live again, so they stay
live=$("$deltac" files --format ndjson "$t" | grep -o '"path":"[^"]*"' | cut -d'"' -f4 | sort)
expect_eq "no live file among the lite candidates" "$(comm -12 <(echo "$live") <(echo "$lite"))" ""
echo "$lite" | grep -q '^deletion_vector_' && ok || bad "lite lists no replaced DV file: $lite"
run vacuum --lite --format table "$t"
grep -q "vacuum lite: deleted $(echo "$lite" | wc -l) files .* removes read from version 0 on; logged" "$tmp/out" && ok ||
  bad "lite summary: $(cat "$tmp/out")"
[ -e "$t/p=a/untracked.parquet" ] && ok || bad "lite deleted an untracked file"
for v in 4 $last; do expect_eq "lite: v$v reads as before" "$(rows --version $v "$t")" "${want[$v]}"; done
python3 - "$t" <<'PY' && ok || bad "VACUUM START says LITE"
import json, os, sys
log = os.path.join(sys.argv[1], "_delta_log")
last = sorted(f for f in os.listdir(log) if f.endswith(".json"))[-1]
s = json.loads(open(os.path.join(log, "%020d.json" % (int(last[:20]) - 1))).readline())["commitInfo"]
assert s["operation"] == "VACUUM START" and s["operationParameters"]["vacuumType"] == "LITE", s
PY
run vacuum --lite --format table "$t" && { grep -q "deleted 0 files" "$tmp/out" && ok || bad "second lite: $(cat "$tmp/out")"; }
# the full vacuum still finds the untracked file
run vacuum --format ndjson "$t"
expect_eq "full after lite: the untracked file" "$(grep -o '"path":"[^"]*"' "$tmp/out" | cut -d'"' -f4)" "p=a/untracked.parquet"

finish vacuum
