#!/usr/bin/env bash
# V2 checkpoints in JSON form (deltac.checkpoint.v2Format=json on a
# delta.checkpointPolicy=v2 table): <v>.checkpoint.<uuid>.json holding one
# action a line (protocol, metaData, sidecar, checkpointMetadata), the file
# actions in a Parquet sidecar, _last_checkpoint naming it; the table reads
# from the checkpoint alone; log cleanup keeps the sidecars a JSON
# checkpoint names and deletes the ones of the checkpoints it removed.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
rows() { "$deltac" scan --format csv "$@" | sort | md5sum; }

t="$tmp/t"
for v in 0 1 2 3 4; do
  printf '{"id":%d,"p":"%s"}\n{"id":%d,"p":"b"}\n' $v a $((v + 100)) >"$tmp/in.ndjson"
  if [ $v = 0 ]; then
    run write --schema 'id long, p string' --partition-by p --property delta.checkpointPolicy=v2 \
      --property deltac.checkpoint.v2Format=json --input "$tmp/in.ndjson" "$t"
  else run write --input "$tmp/in.ndjson" "$t"; fi
done
run delete --where "id = 101" "$t"    # v5: a remove to carry
run checkpoint --version 2 "$t"
run checkpoint "$t"
declare -A want=()
for v in 2 3 4 5; do want[$v]=$(rows --version $v "$t"); done
log="$t/_delta_log"
cp5=$(cd "$log" && ls | grep '^00000000000000000005\.checkpoint\.')
[[ "$cp5" =~ ^00000000000000000005\.checkpoint\.[0-9a-f-]{36}\.json$ ]] && ok || bad "checkpoint name: $cp5"
python3 - "$log" "$cp5" <<'PY' && ok || bad "JSON checkpoint content"
import json, os, sys
log, name = sys.argv[1], sys.argv[2]
acts = [json.loads(l) for l in open(os.path.join(log, name))]
kinds = sorted(k for a in acts for k in a)
assert kinds == ["checkpointMetadata", "metaData", "protocol", "sidecar"], kinds
cm = next(a["checkpointMetadata"] for a in acts if "checkpointMetadata" in a)
assert cm["version"] == 5, cm
sc = next(a["sidecar"] for a in acts if "sidecar" in a)
f = os.path.join(log, "_sidecars", sc["path"])
assert os.path.getsize(f) == sc["sizeInBytes"], (sc, os.path.getsize(f))
last = json.load(open(os.path.join(log, "_last_checkpoint")))
assert last["version"] == 5 and last["v2Checkpoint"]["path"] == name, last
PY
# the sidecar is Parquet with the file actions: 9 live adds (two files a
# write, the one holding only id 101 removed) and that remove
expect_eq "sidecar rows" "$("$deltac" parquet cat "$log/_sidecars/$(python3 -c "import json,sys; print(next(json.loads(l)['sidecar']['path'] for l in open(sys.argv[1]) if 'sidecar' in l))" "$log/$cp5")" | wc -l)" 10
# read from the checkpoints alone
for v in 0 1 2 3 4 5; do mv "$log/$(printf %020d $v).json" "$tmp/"; done
expect_eq "latest from the JSON checkpoint" "$(rows "$t")" "${want[5]}"
expect_error "no commit file for version 3" scan --version 4 "$t"
for v in 0 1 2 3 4 5; do mv "$tmp/$(printf %020d $v).json" "$log/"; done
for v in 2 3 4 5; do expect_eq "v$v" "$(rows --version $v "$t")" "${want[$v]}"; done
# log cleanup: the cut is the checkpoint at 5; the sidecar of the one at 2 goes, 5's stays
for f in "$log"/0000000000000000000[0-4].* "$log"/_sidecars/*; do touch -d '40 days ago' "$f"; done
touch "$log/00000000000000000005.json"
run cleanup-log --format ndjson "$t"
expect_eq "cleanup deleted one sidecar" "$(grep -c '_delta_log/_sidecars/' "$tmp/out")" 1
expect_eq "one sidecar left" "$(ls "$log/_sidecars" | wc -l)" 1
expect_eq "after cleanup: v5" "$(rows --version 5 "$t")" "${want[5]}"
# a write and an automatic checkpoint later still read
run write --input "$tmp/in.ndjson" "$t"
expect_eq "rows after another write" "$("$deltac" scan --format count "$t")" 11

finish checkpoint_v2_json
