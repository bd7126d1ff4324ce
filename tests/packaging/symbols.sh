#!/usr/bin/env bash
# The libraries a user links export the public API only: every defined global
# symbol of libdeltac.so (dynamic table) and libdeltac.a is delta_*, so that
# internals like fmt_double or commit_run cannot clash with a symbol of the
# program or of another library. Also checks that every function declared in
# include/ is exported by both.
#
# usage: bash tests/packaging/symbols.sh BUILD_DIR   (from the repo root)
#        bash tests/packaging/symbols.sh --installed LIBDIR
set -uo pipefail
source "$(dirname "$0")/../prereq.sh"
if [ "${1:-}" = --installed ]; then lib=$2; else lib=${1:-build}; fi
lib=$(realpath "$lib")
cd "$(dirname "$0")/../.."
command -v nm >/dev/null || missing "nm (binutils) not installed"
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

so=$lib/libdeltac.so
a=$lib/libdeltac.a
for f in "$so" "$a"; do [ -e "$f" ] || bad "$f does not exist"; done

# nm prints "ADDRESS TYPE NAME"; archive member headers and blank lines have
# fewer fields
exports() { awk 'NF == 3 { print $3 }' | sort -u; }
nm -D --defined-only "$so" | exports >"${TMPDIR:-/tmp}/deltac-so-syms.$$"
nm --defined-only --extern-only "$a" | exports >"${TMPDIR:-/tmp}/deltac-a-syms.$$"
so_syms=${TMPDIR:-/tmp}/deltac-so-syms.$$ a_syms=${TMPDIR:-/tmp}/deltac-a-syms.$$
trap 'rm -f "$so_syms" "$a_syms"' EXIT

for pair in "libdeltac.so:$so_syms" "libdeltac.a:$a_syms"; do
  name=${pair%%:*} syms=${pair#*:}
  n=$(wc -l <"$syms")
  other=$(grep -v '^delta_' "$syms" | head -20 | tr '\n' ' ')
  if [ "$n" -gt 50 ] && [ -z "$other" ]; then ok
  else bad "$name: $n exported symbols, not delta_*: ${other:-none}"; fi
done
# both libraries export the same API
if diff -q "$so_syms" "$a_syms" >/dev/null; then ok
else bad "libdeltac.so and libdeltac.a export different symbols: $(diff "$so_syms" "$a_syms" | grep '^[<>]' | head -5 | tr '\n' ' ')"; fi

# every delta_* function declared in the public headers is exported
missing_syms=""
for fn in $(grep -rhoE '\bdelta_[a-z0-9_]+\(' include/ | tr -d '(' | sort -u); do
  grep -qx "$fn" "$so_syms" || missing_syms="$missing_syms $fn"
done
if [ -z "$missing_syms" ]; then ok; else bad "declared in include/ but not exported:$missing_syms"; fi

echo "packaging_symbols: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
