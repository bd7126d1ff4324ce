#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (run by `make fuzz`).
#
#   bash fuzz/run.sh [TARGET...]          e.g. bash fuzz/run.sh fuzz_parquet
#   FUZZ_SECONDS=600 bash fuzz/run.sh     time per target (default 60)
#
# Builds every fuzz/fuzz_*.c target with clang into build-fuzz/: the library
# is instrumented for coverage (-fsanitize=fuzzer-no-link) and built with
# ASan+UBSan (DELTAC_SANITIZE), the targets link libFuzzer. Each target then
# runs for FUZZ_SECONDS over a working copy of its seed corpus
# fuzz/corpus/<name>/ (in build-fuzz/corpus/<name>/, so new inputs never land
# in the repository; copy interesting ones back by hand). Crashing inputs are
# saved as fuzz/crashes/<name>-crash-<sha1> (and leak-/timeout-/oom-); replay
# one with build-fuzz/fuzz_<name> FILE. Exits 1 if any target found a crash.
# CI does not fuzz: it replays the seed corpora (ctest label fuzz).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
BUILD="${FUZZ_BUILD:-build-fuzz}"
JOBS="${JOBS:-2}"

command -v clang >/dev/null 2>&1 || { echo "fuzz: clang is missing; run: bash scripts/bootstrap.sh" >&2; exit 1; }

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for src in fuzz/fuzz_*.c; do
    [ -e "$src" ] || continue
    targets+=("$(basename "$src" .c)")
  done
fi
if [ "${#targets[@]}" -eq 0 ]; then
  echo "fuzz: no fuzz targets (fuzz/fuzz_*.c)" >&2
  exit 1
fi

echo "fuzz: building ${targets[*]} with clang into $BUILD/"
CC=clang cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDELTAC_FUZZ=ON -DDELTAC_SANITIZE=ON \
  -DDELTAC_WERROR=OFF -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target "${targets[@]}"

mkdir -p fuzz/crashes
failed=()
for t in "${targets[@]}"; do
  name="${t#fuzz_}"
  bin="$BUILD/$t"
  [ -x "$bin" ] || { echo "fuzz: $bin was not built" >&2; failed+=("$t"); continue; }
  work="$BUILD/corpus/$name"
  mkdir -p "$work"
  if [ -d "fuzz/corpus/$name" ]; then cp -a "fuzz/corpus/$name/." "$work/"; fi
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=("-dict=fuzz/$name.dict")
  echo "fuzz: $t for ${FUZZ_SECONDS}s over $(find "$work" -type f | wc -l) inputs"
  if ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
     UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
     "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="fuzz/crashes/$name-" "${dict[@]}" "$work" 2>"$BUILD/$t.log"; then
    echo "fuzz: $t: ok ($(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$BUILD/$t.log" | grep -oE '[0-9]+$' || echo '?') executions)"
  else
    echo "fuzz: $t: FOUND A CRASH; log: $BUILD/$t.log" >&2
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$BUILD/$t.log" | head -n 5 >&2 || true
    ls -1t fuzz/crashes/"$name"-* 2>/dev/null | head -n 3 >&2 || true
    failed+=("$t")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]} (inputs in fuzz/crashes/)" >&2
  exit 1
fi
echo "fuzz: no crashes in ${#targets[@]} targets (${FUZZ_SECONDS}s each)"
