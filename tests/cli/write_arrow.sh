#!/usr/bin/env bash
# deltac write --format arrow: Arrow IPC streams on stdin. Round trips of
# tables with many types (scan --format arrow | write --format arrow, rows
# compared), streams written by the npm apache-arrow package (plain,
# dictionary-encoded, ZSTD and LZ4_FRAME bodies), and malformed or
# unsupported streams failing with one line and no commit, also when the
# stream goes bad after batches already written.
source "$(dirname "$0")/../lib.sh"

rows() { "$deltac" scan --format ndjson "$1" | sort; }
commits() { ls "$1/_delta_log" | grep -c '\.json$'; }

# (a) round trips
for name in delta-golden.data-reader-primitives delta-golden.data-reader-nested-struct \
            delta-golden.data-reader-array-primitives delta-golden.data-reader-map; do
  src="$T/$name"; dst="$tmp/$name"
  if ! "$deltac" scan --format arrow "$src" | "$deltac" write --format arrow "$dst" >/dev/null 2>"$tmp/err"; then
    bad "$name: write failed: $(cat "$tmp/err")"; continue
  fi
  if [ "$(rows "$src")" = "$(rows "$dst")" ] && [ -n "$(rows "$src")" ]; then ok; else bad "$name: rows differ after the round trip"; fi
done
# a file named .arrows is read as a stream too, and appends match by name
"$deltac" scan --format arrow "$T/delta-golden.data-reader-primitives" >"$tmp/p.arrows"
p="$tmp/delta-golden.data-reader-primitives"
if "$deltac" write "$p" "$tmp/p.arrows" >/dev/null 2>"$tmp/err" &&
   [ "$("$deltac" scan --format ndjson "$p" | wc -l)" -eq 22 ]; then ok; else bad "append from .arrows file: $(cat "$tmp/err")"; fi

# (b) a stream from apache-arrow (skipped without node and the package)
if command -v node >/dev/null && [ -d node_modules/apache-arrow ]; then
  node tests/cli/write_arrow_make.mjs typed >"$tmp/typed.arrows"
  if "$deltac" write --format arrow "$tmp/typed" <"$tmp/typed.arrows" >/dev/null 2>"$tmp/err"; then
    got=$(rows "$tmp/typed")
    want=$(sort <<'JSON'
{"i":1,"l":10,"f":1.5,"s":"a","b":true,"d":"2024-01-02","ts":"2023-11-14T22:13:20.000000Z","li":[1,2],"st":{"x":1,"y":"p"}}
{"i":null,"l":20,"f":null,"s":"héllo","b":false,"d":null,"ts":null,"li":[],"st":{"x":null,"y":"q"}}
{"i":3,"l":null,"f":-2.25,"s":null,"b":null,"d":"1970-01-01","ts":"1970-01-01T00:00:00.000000Z","li":null,"st":null}
JSON
)
    if [ "$got" = "$want" ]; then ok; else bad "apache-arrow stream: got $got"; fi
    want_typed=$want
  else bad "apache-arrow stream: $(cat "$tmp/err")"; fi
  # merge --source - --format arrow: two rows match on i, the null key and a new row insert
  "$deltac" scan --format arrow "$tmp/typed" >"$tmp/typed2.arrows"
  if "$deltac" merge --source - --format arrow --on "t.i = s.i" --when-matched-update-all \
       --when-not-matched-insert-all "$tmp/typed" <"$tmp/typed2.arrows" >"$tmp/out" 2>"$tmp/err" &&
     grep -q "1 rows inserted, 2 updated" "$tmp/out" && [ "$(rows "$tmp/typed" | wc -l)" -eq 4 ]; then ok
  else bad "merge from an arrow stream: $(cat "$tmp/out" "$tmp/err")"; fi
  # dictionary-encoded columns (one in a struct), replacement dictionaries in the second batch
  node tests/cli/write_arrow_make.mjs dict >"$tmp/dict.arrows"
  if "$deltac" write --format arrow "$tmp/dict" <"$tmp/dict.arrows" >/dev/null 2>"$tmp/err"; then
    got=$(rows "$tmp/dict")
    want=$(sort <<'JSON'
{"c":"a","k":"x","s":{"code":"p"}}
{"c":"b","k":null,"s":{"code":"q"}}
{"c":"a","k":"y","s":{"code":null}}
{"c":"c","k":"z","s":{"code":"r"}}
{"c":"c","k":"x","s":{"code":"r"}}
{"c":null,"k":"z","s":{"code":"p"}}
JSON
)
    if [ "$got" = "$want" ]; then ok; else bad "dictionary stream: got $got"; fi
    # the table's columns have the values' types
    if "$deltac" schema "$tmp/dict" 2>/dev/null | grep -q -- "-- c: string"; then ok; else bad "dictionary stream: schema $("$deltac" schema "$tmp/dict" 2>&1)"; fi
  else bad "dictionary stream: $(cat "$tmp/err")"; fi
  # compressed bodies (ZSTD and LZ4_FRAME, some buffers left uncompressed) read as the plain stream
  for codec in zstd lz4; do
    if node tests/cli/write_arrow_make.mjs $codec >"$tmp/$codec.arrows" 2>"$tmp/err"; then
      if "$deltac" write --format arrow "$tmp/$codec" <"$tmp/$codec.arrows" >/dev/null 2>"$tmp/err" &&
         [ "$(rows "$tmp/$codec")" = "$want_typed" ]; then ok
      else bad "$codec stream: $(cat "$tmp/err")"; fi
    else echo "write_arrow: cannot make the $codec stream ($(head -1 "$tmp/err")), skipping"; fi
  done
  # apache-arrow's own prefixes (compressed lengths) are refused, nothing committed
  if node tests/cli/write_arrow_make.mjs zstd-as-is >"$tmp/asis.arrows" 2>/dev/null; then
    expect_error "buffer does not decompress to its stated length" write --format arrow "$tmp/asis" <"$tmp/asis.arrows"
    if [ ! -d "$tmp/asis/_delta_log" ] || [ -z "$(ls "$tmp/asis/_delta_log")" ]; then ok; else bad "a refused stream committed"; fi
  fi
else
  part_missing "write_arrow: node or apache-arrow not installed, the apache-arrow cases not run"
fi

# (c) errors: no commit, one line
before=$(commits "$p")
size=$(wc -c <"$tmp/p.arrows")
head -c $((size - 100)) "$tmp/p.arrows" >"$tmp/trunc.arrows"
expect_error "arrow ipc: malformed stream" write --format arrow "$p" <"$tmp/trunc.arrows"
head -c 200 /dev/urandom >"$tmp/garbage.arrows"
expect_error "arrow ipc:" write --format arrow "$p" <"$tmp/garbage.arrows"
expect_error "empty input" write --format arrow "$p" </dev/null
# a flipped byte in every 7th position of the schema message
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(8, 200, 7): b[i] ^= 0x5a
open(sys.argv[2], 'wb').write(b)" "$tmp/p.arrows" "$tmp/flip.arrows"
"$deltac" write --format arrow "$p" <"$tmp/flip.arrows" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -le 1 ]; then ok; else bad "flipped bytes: exit $rc: $(cat "$tmp/err")"; fi
[ "$rc" -eq 0 ] && before=$((before + 1))
if [ "$(commits "$p")" -eq "$before" ]; then ok; else bad "a failed write committed"; fi

# (d) a stream that goes bad after good batches: the batches before were read
# (and their data files written), but the write fails and the version stays
"$deltac" scan --format arrow "$T/delta-golden.data-reader-primitives" >"$tmp/one.arrows"
python3 - "$tmp/one.arrows" "$tmp/late.arrows" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
assert b.endswith(b'\xff\xff\xff\xff\x00\x00\x00\x00')
# the schema message, then the record batch message four times, then half of it again
pos = 0; msgs = []
while True:
    meta = int.from_bytes(b[pos + 4:pos + 8], 'little')
    if meta == 0: break
    # bodyLength: trust our writer's layout; the message ends where the next 0xFFFFFFFF starts
    nxt = b.index(b'\xff\xff\xff\xff', pos + 8 + meta)
    msgs.append(b[pos:nxt]); pos = nxt
schema, batch = msgs[0], msgs[1]
open(sys.argv[2], 'wb').write(schema + batch * 4 + batch[:len(batch) // 2])
PY
v_before=$("$deltac" info "$p" 2>/dev/null | grep -m1 -i version)
files_before=$(find "$p" -name '*.parquet' | wc -l)
# a tiny target file size: each batch's rows go to a data file before the failure
expect_error "arrow ipc: malformed stream: truncated message" write --format arrow --target-file-size 1 "$p" <"$tmp/late.arrows"
if [ "$("$deltac" info "$p" 2>/dev/null | grep -m1 -i version)" = "$v_before" ] && [ "$(commits "$p")" -eq "$before" ]; then ok
else bad "a stream failing late moved the table's version"; fi
if [ "$("$deltac" scan --format ndjson "$p" | wc -l)" -eq "$(rows "$p" | wc -l)" ]; then ok; else bad "scan after a failed write"; fi
# streaming: the good batches were written out before the bad one was read
# (left as uncommitted files, as any failed write leaves them)
if [ "$(find "$p" -name '*.parquet' | wc -l)" -gt "$files_before" ]; then ok; else bad "no data file written before the failure"; fi

finish write_arrow
