# Shared by the benchmark scripts (sourced): best-of-N timing of a command.
#
# time_cmd CMD...: runs CMD $RUNS times (stdout to $tmp/out, stderr to
# $tmp/err; $tmp must exist) and prints "best_seconds peak_rss_kb first_number",
# the last being the first integer CMD printed (a row count). Fails, naming
# the command, when a run fails.
time_cmd() {
  local best="" rss=0 t0 t1 dt r i
  for ((i = 0; i < RUNS; i++)); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" || {
      echo "bench: '$*' failed: $(grep -v 'Command exited' "$tmp/err" | head -n1)" >&2; return 1; }
    t1=$EPOCHREALTIME
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    r=$(tail -n1 "$tmp/rss")
    if [ -z "$best" ] || awk -v a="$dt" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$dt; fi
    [ "$r" -gt "$rss" ] && rss=$r
  done
  echo "$best $rss $(grep -oE '[0-9]+' "$tmp/out" | head -n1)"
}
