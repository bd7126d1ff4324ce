#!/usr/bin/env bash
# Liquid clustering end to end: create --cluster-by (protocol, domain,
# physical names under column mapping), appends, UPDATE/DELETE keep the
# domain, OPTIMIZE clusters (rows kept, clusteringProvider "liquid", files
# cover narrow ranges of the clustering column, a second run is a no-op),
# --zorder-by refused, errors for bad --cluster-by, the preview `liquid`
# table refused for writes but its columns shown by info.
source "$(dirname "$0")/../lib.sh"

run() { "$deltac" "$@" >"$tmp/out" 2>"$tmp/err" || { bad "deltac $*: $(cat "$tmp/err")"; return 1; }; }
expect_eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got $2, wanted $3"; fi; }
rows() { "$deltac" scan --format csv "$1" | tr -d '\r' | sort | md5sum; }

for b in 0 1 2 3; do
  for i in $(seq $((b * 50)) $((b * 50 + 49))); do
    printf '{"id":%d,"x":%d,"s":"v%d"}\n' $i $(( (i * 37) % 101 )) $i
  done >"$tmp/in$b.ndjson"
done

for kind in plain cm; do
  t="$tmp/t_$kind"
  extra=()
  [ $kind = cm ] && extra=(--property delta.columnMapping.mode=name)
  run create --schema 'id long, x long, s string' --cluster-by x "${extra[@]}" "$t" || continue
  v0="$t/_delta_log/00000000000000000000.json"
  grep -q '"writerFeatures":\[[^]]*"clustering"' "$v0" && grep -q '"writerFeatures":\[[^]]*"domainMetadata"' "$v0" &&
    ok || bad "$kind: protocol $(grep protocol "$v0")"
  if [ $kind = cm ]; then
    phys=$(grep -o '"name\\":\\"x\\"[^}]*physicalName\\":\\"[^\\]*' "$v0" | grep -o 'col-[0-9a-f-]*')
    grep -q "clusteringColumns.*$phys" "$v0" && [ -n "$phys" ] && ok || bad "cm: domain not by physical name"
  else
    grep -qF '"configuration":"{\"clusteringColumns\":[[\"x\"]]}"' "$v0" && ok || bad "plain: domain $(grep domain "$v0")"
  fi
  grep -qF '"clusterBy":"[\"x\"]"' "$v0" && ok || bad "$kind: commitInfo clusterBy"
  for b in 0 1 2 3; do run write --input "$tmp/in$b.ndjson" "$t"; done
  run update --set "s = 'u'" --where "id < 10" "$t"
  run delete --where "id >= 190" "$t"
  expect_eq "$kind: info after DML" "$("$deltac" info "$t" | grep 'clustering columns')" "clustering columns: x"
  before=$(rows "$t")
  run optimize --target-size 1K "$t"
  expect_eq "$kind: rows after optimize" "$(rows "$t")" "$before"
  last=$(ls "$t/_delta_log" | grep '\.json$' | tail -1)
  adds=$(grep -c '"add"' "$t/_delta_log/$last")
  expect_eq "$kind: clustered adds" "$(grep '"add"' "$t/_delta_log/$last" | grep -c '"clusteringProvider":"liquid"')" "$adds"
  [ "$adds" -gt 1 ] && ok || bad "$kind: optimize wrote $adds files"
  grep -qF '"clusterBy":"[\"x\"]"' "$t/_delta_log/$last" && ok || bad "$kind: optimize clusterBy parameter"
  run optimize "$t" && grep -q 'nothing' "$tmp/out" && ok || bad "$kind: second optimize: $(cat "$tmp/out")"
  expect_error "the table is clustered" optimize --zorder-by id "$t"
  # a write into it keeps it clustered; only unclustered files make optimize work again
  run write --input "$tmp/in0.ndjson" "$t"
  run optimize "$t" && grep -q '^optimize: version' "$tmp/out" && ok || bad "$kind: optimize after append: $(cat "$tmp/out")"
  expect_error "clustered differently" write --cluster-by id --input "$tmp/in0.ndjson" "$t"
  run write --cluster-by x --input "$tmp/in0.ndjson" "$t"
done

# file ranges of x in the plain table after optimize: disjoint
t="$tmp/t_narrow"
run write --cluster-by x --input "$tmp/in0.ndjson" "$t"
for b in 1 2 3; do run write --input "$tmp/in$b.ndjson" "$t"; done
run optimize --target-size 1K "$t"
last=$(ls "$t/_delta_log" | grep '\.json$' | tail -1)
ranges=$(grep '"add"' "$t/_delta_log/$last" | sed 's/.*minValues\\":{[^}]*\\"x\\":\([0-9]*\).*maxValues\\":{[^}]*\\"x\\":\([0-9]*\).*/\1 \2/' | sort -n)
[ "$(echo "$ranges" | grep -c '^[0-9]* [0-9]*$')" -gt 1 ] && ok || bad "file ranges: $ranges"
overlap=$(echo "$ranges" | awk 'NR > 1 && $1 < prev { n++ } { prev = $2 } END { print n + 0 }')
expect_eq "clustered files overlap in x ($(echo $ranges))" "$overlap" 0

expect_error "either partitioned or clustered" create --schema 'a long, b long' --cluster-by a --partition-by b "$tmp/e1"
expect_error "no column nope" create --schema 'a long' --cluster-by nope "$tmp/e2"
expect_error "no min/max statistics" create --schema 'a long, b boolean' --cluster-by b "$tmp/e3"

lc="$tmp/liquid"
cp -r "$T/delta-rs.table_with_liquid_clustering" "$lc" && chmod -R u+w "$lc"
expect_eq "preview table info" "$("$deltac" info "$lc" | grep 'clustering columns')" "clustering columns: id"
expect_error "writer feature liquid" write --input "$tmp/in0.ndjson" "$lc"
expect_error "writer feature liquid" optimize "$lc"
finish clustering
