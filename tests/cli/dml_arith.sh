#!/usr/bin/env bash
# Decimal, date and timestamp arithmetic in UPDATE's and MERGE's SET
# expressions, with Spark's semantics: exact decimals rounded HALF_UP into
# the column's scale, date + int, add_months clamping, timestamp +
# INTERVAL, date_trunc; rows before 1970 and NULLs; the change data feed's
# pre/post images; one-line errors that leave the table as it was.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
rows() { "$deltac" scan --format csv "$1" | tr -d '\r' | tail -n +2 | sort | tr '\n' ' '; }
versions() { ls "$1/_delta_log" | grep -c '\.json$'; }

t="$tmp/t"
cat >"$tmp/in.ndjson" <<'J'
{"id":1,"amt":"10.25","d":"2024-01-31","ts":"2024-03-10T10:30:00Z","n":3}
{"id":2,"amt":"-3.35","d":"1969-12-31","ts":"1969-12-31T23:59:59.5Z","n":-7}
{"id":3,"amt":null,"d":null,"ts":null,"n":null}
J
run write --schema 'id long, amt decimal(10,2), d date, ts timestamp, n int' \
  --property delta.enableChangeDataFeed=true --input "$tmp/in.ndjson" "$t"

# 11.275 and -3.685 round half up (away from zero); Feb 2024 has 29 days
run update --set "amt = amt * 1.1, d = add_months(d, 1), ts = ts + INTERVAL '90' MINUTE" "$t"
expect_eq "update 1" "$(rows "$t")" \
  "1,11.28,2024-02-29,2024-03-10T12:00:00.000000Z,3 2,-3.69,1970-01-31,1970-01-01T01:29:59.500000Z,-7 3,,,, "
# decimal / int + int column; date - int; truncation to the hour
run update --set "amt = amt / 3 + n, d = d - 7, ts = date_trunc('hour', ts)" --where "id <= 2" "$t"
expect_eq "update 2" "$(rows "$t")" \
  "1,6.76,2024-02-22,2024-03-10T12:00:00.000000Z,3 2,-8.23,1970-01-24,1970-01-01T01:00:00.000000Z,-7 3,,,, "
expect_eq "update 2 change feed" "$("$deltac" changes --from 2 --to 2 --format csv "$t" | tr -d '\r' | tail -n +2 |
  cut -d, -f1-6 | sort | tr '\n' ' ')" \
  "1,11.28,2024-02-29,2024-03-10T12:00:00.000000Z,3,update_preimage 1,6.76,2024-02-22,2024-03-10T12:00:00.000000Z,3,update_postimage 2,-3.69,1970-01-31,1970-01-01T01:29:59.500000Z,-7,update_preimage 2,-8.23,1970-01-24,1970-01-01T01:00:00.000000Z,-7,update_postimage "
# remainder, CAST to a decimal, datediff into an int, a date into a timestamp
run update --set "amt = CAST(n AS DECIMAL(5,1)) / 7 + amt % 2, n = datediff(d, DATE '2024-01-01'), ts = d + INTERVAL 1 DAY" "$t"
expect_eq "update 3" "$(rows "$t")" \
  "1,1.19,2024-02-22,2024-02-23T00:00:00.000000Z,52 2,-1.23,1970-01-24,1970-01-25T00:00:00.000000Z,-19700 3,,,, "

# errors: one line, nothing committed
v=$(versions "$t")
expect_error "does not fit column amt decimal(10,2)" update --set "amt = amt * 100000000" "$t"
expect_error "division by zero" update --set "amt = amt / 0" "$t"
expect_error "'*' cannot be applied to date and long" update --set "d = d * 2" "$t"
expect_error "timestamp + integer is not defined" update --set "ts = ts + 1" "$t"
expect_error "unknown INTERVAL unit 'FORTNIGHTS'" update --set "ts = ts + INTERVAL 2 FORTNIGHTS" "$t"
expect_error "column d is date: cannot assign a decimal" update --set "d = amt" "$t"
expect_eq "errors commit nothing" "$(versions "$t")" "$v"

# MERGE: the source's columns in the arithmetic
cat >"$tmp/src.ndjson" <<'J'
{"id":1,"pct":"0.5","days":10,"hrs":2}
{"id":2,"pct":"0.125","days":-1,"hrs":-3}
{"id":4,"pct":"2","days":0,"hrs":0}
J
run merge "$t" --source "$tmp/src.ndjson" --on "t.id = s.id" \
  --when-matched-update "amt = t.amt * (1 + CAST(s.pct AS DECIMAL(5,3))), d = date_add(t.d, s.days), ts = t.ts + INTERVAL 1 HOUR" \
  --when-not-matched-insert "id = s.id, amt = CAST(s.pct AS DECIMAL(5,3)) * 3, d = DATE '2024-01-31' + s.days, ts = CAST(DATE '2000-02-29' AS TIMESTAMP) - INTERVAL 1 YEAR, n = s.hrs"
expect_eq "merge" "$(rows "$t")" \
  "1,1.79,2024-03-03,2024-02-23T01:00:00.000000Z,52 2,-1.38,1970-01-23,1970-01-25T01:00:00.000000Z,-19700 3,,,, 4,6.00,2024-01-31,1999-02-28T00:00:00.000000Z,0 "
v=$(versions "$t")
expect_eq "merge change feed" "$("$deltac" changes --from $((v - 1)) --to $((v - 1)) --format csv "$t" | tr -d '\r' |
  tail -n +2 | cut -d, -f1,2,6 | sort | tr '\n' ' ')" \
  "1,1.19,update_preimage 1,1.79,update_postimage 2,-1.23,update_preimage 2,-1.38,update_postimage 4,6.00,insert "

# not matched by source; a matched row; half-up rounding of negative ties
printf '{"id":4,"days":2}\n' >"$tmp/src2.ndjson"
run merge "$t" --source "$tmp/src2.ndjson" --on "t.id = s.id" \
  --when-matched-update "d = t.d + s.days" \
  --when-not-matched-by-source-update "amt = t.amt + 0.015, d = t.d - 1"
expect_eq "merge not matched by source" "$(rows "$t")" \
  "1,1.81,2024-03-02,2024-02-23T01:00:00.000000Z,52 2,-1.37,1970-01-22,1970-01-25T01:00:00.000000Z,-19700 3,,,, 4,6.00,2024-02-02,1999-02-28T00:00:00.000000Z,0 "

# MERGE with schema evolution: a new column typed by its value (decimal(10,2) * decimal(2,1) is
# decimal(13,3); date + int a date)
printf '{"id":1}\n' >"$tmp/src3.ndjson"
run merge "$t" --source "$tmp/src3.ndjson" --on "t.id = s.id" --schema-mode merge \
  --when-matched-update "bonus = t.amt * 1.5, due = t.d + 30"
expect_eq "evolved schema" "$("$deltac" schema --format json "$t" | python3 -c "
import json,sys; print(' '.join('%s:%s' % (f['name'], f['type']) for f in json.load(sys.stdin)['fields'][-2:]))")" \
  "bonus:decimal(13,3) due:date"
expect_eq "evolved rows" "$("$deltac" scan --format csv --columns id,bonus,due "$t" | tr -d '\r' | tail -n +2 | sort | tr '\n' ' ')" \
  "1,2.715,2024-04-01 2,, 3,, 4,, "

finish dml_arith
