#!/usr/bin/env bash
# libdeltac as a user gets it: a fresh Release build of the library with
# clang and -Werror, installed with `cmake --install --prefix` into a
# temporary prefix other than the configured one, then used from outside the
# source tree:
#   - the installed files are there, libdeltac.so/.a export delta_* only
#     (symbols.sh);
#   - examples/read_table.c built with plain `cc $(pkg-config ...)`, linked
#     shared and static, and with a CMake project using find_package(deltac)
#     (tests/packaging/consumer), both ways;
#   - each program reads a shared conformance table and prints the same.
# The CLI is not built again: the full install of BUILD_DIR (the build under
# test, already built) checks that bin/deltac is installed and prints
# version.h's version.
#
# usage: bash tests/packaging/install.sh BUILD_DIR   (from the repo root)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source tests/prereq.sh
main_build=$(realpath "${1:-build}")
[ -x "$main_build/deltac" ] || { echo "FAIL: $main_build/deltac is not built"; exit 1; }
for tool in clang cc cmake pkg-config nm readelf ldd; do
  command -v $tool >/dev/null || missing "$tool not installed"
done
T=$(realpath "${DELTAC_SHARED:-../shared}/conformance/tables" 2>/dev/null)
[ -d "$T/kernel-rs.table-with-dv-small" ] || missing "shared conformance tables not found (DELTAC_SHARED=${DELTAC_SHARED:-../shared})"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
finish() {
  echo "packaging_install: $pass passed, $fail failed ($((SECONDS - start)) s)"
  [ "$fail" -eq 0 ] && prereq_status
  exit
}
start=$SECONDS
ver=$(sed -n 's/^#define DELTAC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/deltac/version.h | paste -sd.)

# 1. the build: the library targets, nothing else
if ! CC=clang cmake -S . -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DDELTAC_WERROR=ON >"$tmp/log" 2>&1; then
  bad "configure: $(tail -5 "$tmp/log")"; finish
fi
if ! cmake --build "$tmp/build" -j"${JOBS:-2}" --target deltac_shared deltac_static >"$tmp/log" 2>&1; then
  bad "clang Release build with -Werror: $(grep -m5 -E 'error|warning' "$tmp/log")"; finish
fi
check "clang Release build has no warnings: $(grep -m3 'warning:' "$tmp/log")" \
  test "$(grep -c 'warning:' "$tmp/log")" = 0
echo "built in $((SECONDS - start)) s"

# 2. the install, to a prefix chosen at install time; everything but the CLI
p=$tmp/prefix
for component in lib dev doc; do
  if ! cmake --install "$tmp/build" --prefix "$p" --component $component >"$tmp/log" 2>&1; then
    bad "install $component: $(tail -5 "$tmp/log")"; finish
  fi
done
for f in include/deltac.h include/deltac/version.h include/deltac/scan.h \
         lib/libdeltac.so lib/libdeltac.so.0 "lib/libdeltac.so.$ver" lib/libdeltac.a \
         lib/pkgconfig/deltac.pc lib/pkgconfig/deltac-static.pc lib/cmake/deltac/deltacConfig.cmake \
         lib/cmake/deltac/deltacConfigVersion.cmake lib/cmake/deltac/deltacTargets.cmake \
         share/doc/deltac/README.md share/doc/deltac/install.md; do
  check "installed: $f" test -e "$p/$f"
done
check "the internal archive is not installed" test ! -e "$p/lib/libdeltac_internal.a"
check "libdeltac.so.0 is the soname" test "$(readelf -d "$p/lib/libdeltac.so.$ver" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')" = libdeltac.so.0
# the whole install of the build under test: the same files and bin/deltac
if cmake --install "$main_build" --prefix "$tmp/full" >"$tmp/log" 2>&1; then
  check "full install: bin/deltac --version prints $ver" test "$("$tmp/full/bin/deltac" --version)" = "deltac $ver"
  files() { (cd "$1" && find . ! -type d | sort); }
  check "full install: the files above, and bin/deltac" test "$(files "$tmp/full")" = "$({ files "$p"; echo ./bin/deltac; } | sort)"
else bad "install of $main_build: $(tail -5 "$tmp/log")"; fi
if bash tests/packaging/symbols.sh --installed "$p/lib" >"$tmp/log" 2>&1; then ok
else bad "installed libraries' symbols: $(grep FAIL "$tmp/log")"; fi

# the same output from every program: a table with a deletion vector at
# version 1, and a filtered read of a partitioned table
want1=$(printf '%s\n' "version 1, 1 live files" "1 columns: value" "8 rows (1 of 1 files read)")
want2_last="2 rows (2 of 3 files read)"
run_example() { # NAME PROGRAM
  local out
  out=$("$2" "$T/kernel-rs.table-with-dv-small" 1 2>&1)
  check "$1: read table-with-dv-small at version 1, got: $out" test "$out" = "$want1"
  out=$("$2" "$T/delta-golden.data-reader-partition-values" "" "as_int = 0 OR as_int IS NULL" 2>&1)
  check "$1: filtered read, got: $out" test "$(tail -1 <<<"$out")" = "$want2_last"
}
# ldd's output is read whole: with pipefail, grep -q closing the pipe early
# would fail the check through ldd's SIGPIPE
links_deltac() { local libs; libs=$(ldd "$1"); [[ "$libs" == *"libdeltac.so.0 => $p/lib/"* ]]; }
static_deltac() { local libs; libs=$(ldd "$1"); [[ "$libs" != *libdeltac* ]]; }

# 3. plain cc with pkg-config
export PKG_CONFIG_PATH=$p/lib/pkgconfig
check "pkg-config --modversion deltac" test "$(pkg-config --modversion deltac 2>&1)" = "$ver"
libdir=$(pkg-config --variable=libdir deltac)
# each installed header compiles on its own, cleanly, as C11 and as C++
# (extern "C")
command -v c++ >/dev/null || part_missing "c++ not installed: the headers not compiled as C++"
bad_headers=""
for h in deltac.h $(cd "$p/include" && ls deltac/*.h); do
  # shellcheck disable=SC2046
  echo "#include <$h>" | cc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -x c $(pkg-config --cflags deltac) - \
    >"$tmp/log" 2>&1 || bad_headers="$bad_headers $h(C): $(head -1 "$tmp/log")"
  if command -v c++ >/dev/null; then
    # shellcheck disable=SC2046
    echo "#include <$h>" | c++ -Wall -Wextra -Werror -fsyntax-only -x c++ $(pkg-config --cflags deltac) - \
      >"$tmp/log" 2>&1 || bad_headers="$bad_headers $h(C++): $(head -1 "$tmp/log")"
  fi
done
check "installed headers compile alone as C11 and C++:$bad_headers" test -z "$bad_headers"
if cc -Wall -Wextra -Werror -o "$tmp/rt_shared" examples/read_table.c $(pkg-config --cflags --libs deltac) -Wl,-rpath,"$libdir" 2>"$tmp/log"; then
  check "pkg-config shared: linked to the installed libdeltac.so.0" links_deltac "$tmp/rt_shared"
  run_example "pkg-config shared" "$tmp/rt_shared"
else bad "cc with pkg-config (shared): $(head -5 "$tmp/log")"; fi
# static: deltac-static.pc links libdeltac.a and the shared libraries it needs
# shellcheck disable=SC2046
if cc -Wall -Wextra -Werror -o "$tmp/rt_static" examples/read_table.c $(pkg-config --cflags --libs deltac-static) 2>"$tmp/log"; then
  check "pkg-config static: does not load libdeltac.so" static_deltac "$tmp/rt_static"
  run_example "pkg-config static" "$tmp/rt_static"
else bad "cc with pkg-config (static): $(head -5 "$tmp/log")"; fi

# 4. a CMake project with find_package(deltac)
unset PKG_CONFIG_PATH
if cmake -S tests/packaging/consumer -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$p" -DEXAMPLES="$root/examples" \
     -DCMAKE_BUILD_TYPE=Release >"$tmp/log" 2>&1 &&
   cmake --build "$tmp/consumer" -j"${JOBS:-2}" >>"$tmp/log" 2>&1; then
  check "find_package shared: linked to the installed libdeltac.so.0" links_deltac "$tmp/consumer/read_table_shared"
  check "find_package static: does not load libdeltac.so" static_deltac "$tmp/consumer/read_table_static"
  run_example "find_package shared" "$tmp/consumer/read_table_shared"
  run_example "find_package static" "$tmp/consumer/read_table_static"
  check "delta_version() and DELTAC_VERSION_STRING" \
    test "$("$tmp/consumer/version_shared")" = "headers $ver, library $ver"
else bad "CMake consumer project: $(grep -m5 -iE 'error' "$tmp/log")"; fi
finish
