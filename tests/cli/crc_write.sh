#!/usr/bin/env bash
# Version checksum files written by deltac: every command that commits
# (create, append, overwrite, replace-where, app-id writes, delete and update
# with and without deletion vectors, merge, optimize, restore, vacuum,
# constraints) leaves <v>.crc for its version, and each one
#   - verifies against a full replay (`deltac info --version v`: checksum
#     "verified", which compares files, bytes, DV totals, metadata, protocol);
#   - agrees with a replay of the raw JSON log done here in Python (numFiles,
#     tableSizeBytes, DV totals, transactions, metadata id and configuration,
#     in-commit timestamp);
# and a checksum already there is never overwritten.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
t="$tmp/t"
for b in 0 1 2; do
  for i in $(seq $((b * 20)) $((b * 20 + 19))); do printf '{"id": %d, "p": "p%d", "v": "x%d"}\n' $i $((i % 3)) $i; done >"$tmp/in$b.ndjson"
done
printf '{"id": 5, "p": "p2", "v": "m"}\n{"id": 500, "p": "p1", "v": "n"}\n' >"$tmp/src.ndjson"

run create --schema 'id long, p string, v string' --partition-by p --property delta.enableDeletionVectors=true \
  --property delta.enableChangeDataFeed=true --property delta.enableInCommitTimestamps=true "$t"   # v0
run write --input "$tmp/in0.ndjson" --app-id job --app-version 1 "$t"         # v1
run write --input "$tmp/in1.ndjson" --app-id job --app-version 2 "$t"         # v2
run delete --where "id = 3 OR id = 7" "$t"                                    # v3: DVs
run update --set "v = 'u'" --where "id < 10" "$t"                             # v4
run delete --no-deletion-vectors --where "id = 30" "$t"                       # v5: copy-on-write
run merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" --when-matched-update-all --when-not-matched-insert-all  # v6
run write --mode overwrite --replace-where "p = 'p0'" --input <(grep '"p0"' "$tmp/in2.ndjson") "$t"  # v7
run optimize "$t"                                                             # v8
run constraint add positive "id >= 0" "$t"                                    # v9
run restore --version 4 "$t"                                                  # v10
run write --mode overwrite --input "$tmp/in2.ndjson" "$t"                     # v11
run vacuum --retain 0 --force "$t"                                            # v12, v13
latest=$(($(ls "$t/_delta_log" | grep -c '\.json$') - 1))
if [ "$latest" -ge 12 ]; then ok; else bad "expected at least 13 commits, got $((latest + 1))"; fi

for v in $(seq 0 "$latest"); do
  f=$(printf '%s/_delta_log/%020d.crc' "$t" "$v")
  if [ -s "$f" ]; then ok; else bad "no checksum for version $v"; continue; fi
  st=$("$deltac" info --format json --version "$v" "$t" | python3 -c 'import json,sys; print(json.load(sys.stdin)["checksum"]["status"])')
  if [ "$st" = verified ]; then ok; else bad "version $v: checksum $st"; fi
done

# An independent replay of the JSON commits (no checkpoint is written here).
if python3 - "$t" "$latest" <<'PY'; then ok; else bad "checksums differ from a replay of the raw log"; fi
import json, sys
t, latest = sys.argv[1], int(sys.argv[2])
files, txns, meta, ict = {}, {}, None, None
for v in range(latest + 1):
    for line in open(f"{t}/_delta_log/{v:020d}.json"):
        a = json.loads(line)
        if "add" in a:
            files[a["add"]["path"]] = a["add"]
        elif "remove" in a:
            files.pop(a["remove"]["path"], None)
        elif "txn" in a:
            txns[a["txn"]["appId"]] = a["txn"]["version"]
        elif "metaData" in a:
            meta = a["metaData"]
        elif "commitInfo" in a:
            ict = a["commitInfo"].get("inCommitTimestamp")
    c = json.load(open(f"{t}/_delta_log/{v:020d}.crc"))
    dvs = [f["deletionVector"] for f in files.values() if f.get("deletionVector")]
    want = {"numFiles": len(files), "tableSizeBytes": sum(f["size"] for f in files.values()),
            "numDeletionVectorsOpt": len(dvs), "numDeletedRecordsOpt": sum(d["cardinality"] for d in dvs),
            "numMetadata": 1, "numProtocol": 1, "inCommitTimestampOpt": ict}
    got = {k: c.get(k) for k in want}
    assert got == want, (v, got, want)
    assert {x["appId"]: x["version"] for x in c["setTransactions"]} == txns, (v, c["setTransactions"], txns)
    assert c["metadata"]["id"] == meta["id"] and c["metadata"]["configuration"] == meta["configuration"], v
    assert c["metadata"]["schemaString"] == meta["schemaString"], v
PY

# A checksum already there stays as it was (written put-if-absent): a
# commit whose .crc name is taken keeps the old bytes, and the table reads.
next=$((latest + 1))
printf '{"unrelated":true}' >"$(printf '%s/_delta_log/%020d.crc' "$t" "$next")"
run write --input "$tmp/in0.ndjson" "$t"
if [ "$(cat "$(printf '%s/_delta_log/%020d.crc' "$t" "$next")")" = '{"unrelated":true}' ]; then ok; else bad "existing checksum overwritten"; fi
if "$deltac" scan --format count "$t" >/dev/null 2>&1; then ok; else bad "table unreadable next to a foreign checksum"; fi
finish crc_write
