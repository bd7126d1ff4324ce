#!/usr/bin/env bash
# Expired-log cleanup (deltac cleanup-log, and after every checkpoint):
# log files are made old with touch -d. Only files of versions before the
# newest checkpoint whose older log files are all expired go; every version
# from that checkpoint on reads exactly as before, older ones fail with a
# clear error; a young file holds the cut back to an older checkpoint;
# delta.logRetentionDuration and delta.enableExpiredLogCleanup are honoured.
# V2 checkpoint sidecars no remaining checkpoint references go when old
# (older than a day before midnight UTC and than the retention cutoff).
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
rows() { "$deltac" scan --format csv "$@" | sort | md5sum; }
logf() { printf '%s/_delta_log/%020d.%s' "$1" "$2" "$3"; }
# make the log files of versions FROM..TO look OLD (touch -d text)
age() { for v in $(seq $2 $3); do for f in "$1"/_delta_log/$(printf %020d $v).*; do touch -d "$4" "$f"; done; done; }
# a table of versions 0..9 with checkpoints at 3 and 6
make() {
  for v in $(seq 0 9); do
    printf '{"id": %d, "v": "x%d"}\n' $v $v >"$tmp/row.ndjson"
    if [ $v = 0 ]; then run write --schema 'id long, v string' "${@:2}" --input "$tmp/row.ndjson" "$1" || return 1
    else run write --input "$tmp/row.ndjson" "$1" || return 1; fi
  done
  run checkpoint --version 3 "$1" && run checkpoint --version 6 "$1"
}

t="$tmp/t"
make "$t"
declare -A want=()
for v in $(seq 0 9); do want[$v]=$(rows --version $v "$t"); done

# nothing is old: nothing goes
run cleanup-log --format table "$t" && { grep -q "deleted 0 log files" "$tmp/out" && ok || bad "young: $(cat "$tmp/out")"; }
# versions 0..7 are 40 days old: the cut is the checkpoint at 6
age "$t" 0 7 '40 days ago'
n_before=$(ls "$t/_delta_log" | wc -l)
run cleanup-log --dry-run --format ndjson "$t"
expect_eq "dry run lists" "$(grep -o '_delta_log/[^"]*' "$tmp/out" | tr '\n' ' ')" \
  "$(for v in 0 1 2 3 4 5; do [ $v = 3 ] && echo -n "_delta_log/$(printf %020d $v).checkpoint.parquet "
      echo -n "_delta_log/$(printf %020d $v).crc _delta_log/$(printf %020d $v).json "; done)"
expect_eq "dry run deletes nothing" "$(ls "$t/_delta_log" | wc -l)" "$n_before"
# the cleanup after a new checkpoint
run checkpoint "$t"
[ ! -e "$(logf "$t" 5 json)" ] && [ ! -e "$(logf "$t" 3 checkpoint.parquet)" ] && ok || bad "checkpoint did not clean up"
[ -e "$(logf "$t" 6 json)" ] && [ -e "$(logf "$t" 6 checkpoint.parquet)" ] && [ -e "$(logf "$t" 9 checkpoint.parquet)" ] &&
  ok || bad "cleanup deleted what versions 6.. need: $(ls "$t/_delta_log" | tr '\n' ' ')"
for v in $(seq 6 9); do expect_eq "v$v after cleanup" "$(rows --version $v "$t")" "${want[$v]}"; done
expect_error "older commits were cleaned up" scan --version 2 "$t"
run history --format ndjson "$t" && expect_eq "history" "$(wc -l <"$tmp/out")" 4
# a second run finds nothing more (6's files are older, but 6 is the cut)
run cleanup-log --format table "$t" && { grep -q "deleted 0 log files; oldest readable version 6" "$tmp/out" && ok || bad "again: $(cat "$tmp/out")"; }
run write --input "$tmp/row.ndjson" "$t" && ok   # the table still takes commits

# a young file below the newest expired checkpoint holds the cut back
t="$tmp/young"
make "$t"
age "$t" 0 9 '40 days ago'
touch "$(logf "$t" 4 json)"
run cleanup-log --format table "$t"
grep -q "deleted 6 log files; oldest readable version 3" "$tmp/out"  # 0..2: commit and checksum && ok || bad "young file: $(cat "$tmp/out")"
for v in $(seq 3 9); do "$deltac" scan --format count --version $v "$t" >/dev/null 2>&1 && ok || bad "young: v$v unreadable"; done

# delta.logRetentionDuration
t="$tmp/short"
make "$t" --property "delta.logRetentionDuration=interval 1 hours"
age "$t" 0 9 '2 hours ago'
run cleanup-log --format table "$t"
grep -q "oldest readable version 6" "$tmp/out" && ok || bad "short retention: $(cat "$tmp/out")"
expect_eq "short: v9" "$("$deltac" scan --format count "$t")" 10

# delta.enableExpiredLogCleanup=false: checkpoints leave the log alone
t="$tmp/off"
make "$t" --property delta.enableExpiredLogCleanup=false
age "$t" 0 9 '40 days ago'
run checkpoint "$t"
[ -e "$(logf "$t" 0 json)" ] && ok || bad "cleanup ran although disabled"
expect_eq "off: v0" "$("$deltac" scan --format count --version 0 "$t")" 1

# the automatic checkpoint of a write (delta.checkpointInterval=4) cleans up too
t="$tmp/auto"
make "$t" --property delta.checkpointInterval=4     # checkpoints at 3, 4, 6, 8
age "$t" 0 9 '40 days ago'
for v in 10 11 12; do run write --input "$tmp/row.ndjson" "$t"; done   # v12 is checkpointed
[ -e "$(logf "$t" 12 checkpoint.parquet)" ] && ok || bad "no automatic checkpoint at 12"
expect_eq "auto: oldest file" "$(ls "$t/_delta_log" | head -1)" "00000000000000000008.checkpoint.parquet"
for v in 8 11; do "$deltac" scan --format count --version $v "$t" >/dev/null 2>&1 && ok || bad "auto: v$v unreadable"; done
expect_eq "auto: rows" "$("$deltac" scan --format count "$t")" 13

# V2 checkpoints (delta.checkpointPolicy=v2): sidecars of removed checkpoints
# and old orphans go; referenced, young and retention-young ones stay
t="$tmp/v2"
make "$t" --property delta.checkpointPolicy=v2           # UUID-named checkpoints at 3 and 6
run checkpoint --version 8 "$t"
sc="$t/_delta_log/_sidecars"
expect_eq "v2: one sidecar per checkpoint" "$(ls "$sc" | wc -l)" 3
declare -A wantv2=()
for v in $(seq 6 9); do wantv2[$v]=$(rows --version $v "$t"); done
# the sidecar of the checkpoint at 3 (its sidecar row names it)
old_sc=$("$deltac" parquet cat "$t"/_delta_log/00000000000000000003.checkpoint.*.parquet | grep -o '"path":"[^"]*"' | cut -d'"' -f4)
[ -f "$sc/$old_sc" ] && ok || bad "v2: sidecar of 3 not found: '$old_sc'"
cp "$sc/$old_sc" "$sc/00000000-0000-0000-0000-0000000000aa.parquet"   # orphans
cp "$sc/$old_sc" "$sc/00000000-0000-0000-0000-0000000000bb.parquet"
cp "$sc/$old_sc" "$sc/00000000-0000-0000-0000-0000000000cc.parquet"
cp "$sc/$old_sc" "$sc/00000000-0000-0000-0000-0000000000dd.parquet"
age "$t" 0 5 '40 days ago'                                  # the cut: the checkpoint at 6
touch -d '40 days ago' "$sc"/*
touch -d '12 hours ago' "$sc/00000000-0000-0000-0000-0000000000bb.parquet"   # under a day: may be in progress
touch -d '3 days ago' "$sc/00000000-0000-0000-0000-0000000000cc.parquet"     # within the 30-day retention
touch "$sc/.00000000-0000-0000-0000-0000000000dd.parquet.tmp"; rm "$sc/00000000-0000-0000-0000-0000000000dd.parquet"
touch -d '40 days ago' "$sc/.00000000-0000-0000-0000-0000000000dd.parquet.tmp"  # hidden: a writer's temporary
n_before=$(ls -A "$sc" | wc -l)
run cleanup-log --dry-run --format ndjson "$t"
dry=$(grep -o '_delta_log/_sidecars/[^"]*' "$tmp/out" | sort | tr '\n' ' ')
expect_eq "v2 dry run: the checkpoint at 3's sidecar and the old orphan" "$dry" \
  "_delta_log/_sidecars/00000000-0000-0000-0000-0000000000aa.parquet _delta_log/_sidecars/$old_sc "
expect_eq "v2 dry run deletes nothing" "$(ls -A "$sc" | wc -l)" "$n_before"
run cleanup-log --format ndjson "$t"
expect_eq "v2: real run = dry run" "$(grep -o '_delta_log/_sidecars/[^"]*' "$tmp/out" | sort | tr '\n' ' ')" "$dry"
[ ! -e "$sc/$old_sc" ] && [ ! -e "$sc/00000000-0000-0000-0000-0000000000aa.parquet" ] && ok || bad "old sidecars left"
for f in 00000000-0000-0000-0000-0000000000bb.parquet 00000000-0000-0000-0000-0000000000cc.parquet \
         .00000000-0000-0000-0000-0000000000dd.parquet.tmp; do
  [ -e "$sc/$f" ] && ok || bad "v2: $f deleted"
done
expect_eq "v2: the referenced sidecars and the kept ones" "$(ls -A "$sc" | wc -l)" 5
[ ! -e "$(logf "$t" 5 json)" ] && ls "$t/_delta_log" | grep -q '^00000000000000000006\.checkpoint\.' && ok || bad "v2: log cut"
for v in $(seq 6 9); do expect_eq "v2: v$v after cleanup" "$(rows --version $v "$t")" "${wantv2[$v]}"; done
# a second run: nothing more to do
run cleanup-log --format table "$t" && { grep -q "deleted 0 log files" "$tmp/out" && ok || bad "v2 again: $(cat "$tmp/out")"; }

finish log_cleanup
