# Sourced by the shell tests (tests/lib.sh sources it). A missing prerequisite
# (a tool, an npm package, a fixture) is never a pass: under CI (CI=true) it
# is a failure; elsewhere the test exits 77, which ctest reports as skipped
# (SKIP_RETURN_CODE, set for every test in cmake/test_skips.cmake).
#
#   missing WHAT        the whole test cannot run: exits now
#   part_missing WHAT   one part cannot run: the test goes on, and
#                       prereq_status (called by lib.sh's finish) makes it end
#                       with 77, or 1 under CI
prereq_missing_parts=0
missing() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: $* (a missing prerequisite is a failure under CI=true)"
    exit 1
  fi
  echo "skipped: $*"
  exit 77
}
part_missing() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $* (a missing prerequisite is a failure under CI=true)"
  else echo "skipped: $*"; fi
  prereq_missing_parts=$((prereq_missing_parts + 1))
}
# The exit status of a test that passed everything it could run.
prereq_status() {
  [ "$prereq_missing_parts" -eq 0 ] && return 0
  [ "${CI:-}" = true ] && return 1
  return 77
}
