#!/usr/bin/env bash
# deltac write --format arrow reads its stream as it comes: 2 M rows (about
# 128 MB of Arrow IPC, made by the npm apache-arrow package and piped in as
# they are made) are written with a peak resident set well below the
# stream's size (it was above it when the whole stream was read first), and
# all the rows arrive. Skipped without node, apache-arrow or GNU time.
source "$(dirname "$0")/../lib.sh"

if ! command -v node >/dev/null || [ ! -d node_modules/apache-arrow ] || [ ! -x /usr/bin/time ]; then
  missing "write_arrow_memory: node, apache-arrow or /usr/bin/time not installed (scripts/bootstrap.sh)"
fi
rows=2000000
size=$(node tests/cli/write_arrow_make.mjs big $rows | wc -c)
node tests/cli/write_arrow_make.mjs big $rows |
  /usr/bin/time -v -o "$tmp/time" "$deltac" write --format arrow "$tmp/big" >"$tmp/out" 2>"$tmp/err"
rc=${PIPESTATUS[1]}
if [ "$rc" -eq 0 ] && grep -q "($rows rows" "$tmp/out"; then ok; else bad "write: exit $rc: $(cat "$tmp/out" "$tmp/err")"; fi
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$tmp/time")
echo "write_arrow_memory: stream $((size / 1048576)) MiB, peak RSS $((rss_kb / 1024)) MiB"
# well below the stream: under half of it (not measured under AddressSanitizer,
# whose quarantine keeps freed memory resident)
libs=$(ldd "$deltac" 2>/dev/null) # not piped into grep -q: with pipefail, ldd's SIGPIPE would fail the test
if [[ "$libs" == *libasan* ]]; then echo "write_arrow_memory: ASan build, RSS not checked"
elif [ -n "$rss_kb" ] && [ $((rss_kb * 1024)) -lt $((size / 2)) ]; then ok
else bad "peak RSS ${rss_kb} kB is not well below the ${size}-byte stream"; fi
finish write_arrow_memory
