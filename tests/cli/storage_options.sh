#!/usr/bin/env bash
# --option KEY=VALUE on local tables: accepted (and unused) by every command
# that opens a table, in both spellings and after or before TABLE; an
# unknown key is one line naming it, exit 1, for reads, writes, DML and
# maintenance alike, and nothing is written; a pair without '=' is a usage
# error that does not echo the text; `parquet` refuses it; `serve` names the
# table and key of a bad config option.
source "$(dirname "$0")/../lib.sh"

t=$tmp/t
printf '{"id":1,"p":"a"}\n{"id":2,"p":"b"}\n' >"$tmp/in.ndjson"
run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" && ok || bad "deltac $*: $(cat "$tmp/err")"; }
run write --option aws_region=eu-west-1 --partition-by p --input "$tmp/in.ndjson" "$t"
run write --mode append --option=timeout=30s --option AWS_REGION=x --input "$tmp/in.ndjson" "$t"
run info "$t" --option aws_region=eu-west-1
grep -q '^records: *4$' "$tmp/out" && ok || bad "info after two writes: $(cat "$tmp/out")"
run scan --format count --option aws_region=x "$t"
[ "$(cat "$tmp/out")" = 4 ] && ok || bad "scan count: $(cat "$tmp/out")"
run delete --option aws_region=x --where "id = 1" "$t"
run checkpoint --option aws_region=x "$t"
run history --option aws_region=x "$t"

for cmd in "info" "files" "history" "scan" "checkpoint" "optimize" "vacuum" "cleanup-log" \
           "delete --where true" "update --set id=1" "write --mode append --input $tmp/in.ndjson" \
           "constraint add c id>0" "restore --version 0"; do
  # shellcheck disable=SC2086
  expect_error "unknown storage option 'nope_key'" $cmd --option nope_key=1 "$t"
done
v=$("$deltac" history --format ndjson "$t" | wc -l)
[ "$v" = 3 ] && ok || bad "an unknown option committed something: $v versions"

# without '=': usage (exit 2), the text not echoed (it may be a secret)
"$deltac" info --option s3cretvalue "$t" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && ! grep -q s3cretvalue "$tmp/err"; then ok; else bad "--option without '=': exit $rc: $(cat "$tmp/err")"; fi
"$deltac" info "$t" --option >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && ok || bad "--option without a value: exit $rc"
# after --, it is a positional argument
"$deltac" info -- --option >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -ne 0 ] && ! grep -q "needs" "$tmp/err" && ok || bad "--option after --: exit $rc: $(cat "$tmp/err")"
"$deltac" parquet schema --option a=b "$tmp/in.ndjson" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && ok || bad "parquet with --option: exit $rc"

# serve: a bad key in the config stops it at start with the table and key
printf 't = %s\noption t nope_key = 1\n' "$t" >"$tmp/bad.conf"
timeout 20 "$deltac" serve --port 0 --config "$tmp/bad.conf" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "table 't'.*nope_key" "$tmp/err"; then ok; else bad "serve bad option: exit $rc: $(cat "$tmp/err")"; fi
printf 'option t aws_region = x\nt = %s\n' "$t" >"$tmp/bad.conf"
timeout 20 "$deltac" serve --port 0 --config "$tmp/bad.conf" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown table" "$tmp/err" && ok || bad "serve option before its table: exit $rc: $(cat "$tmp/err")"
finish storage_options
