# Sourced by the shell tests: the deltac under test ($deltac, from $1), the
# shared tables ($T), a temp dir ($tmp, removed on exit), counters and
# assertions. The test ends with `finish NAME`.
set -uo pipefail
# shellcheck source=tests/prereq.sh
source "$(dirname "${BASH_SOURCE[0]}")/prereq.sh"
deltac=$(realpath "${1:-build/deltac}")
cd "$(dirname "${BASH_SOURCE[1]}")/../.."
T=$(realpath "${DELTAC_SHARED:-../shared}/conformance/tables")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
# expect_error SUBSTRING ARGS...: deltac ARGS exits 1 with one stderr line containing SUBSTRING
expect_error() {
  local want=$1; shift
  "$deltac" "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  if [ $rc -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err"; then
    bad "deltac $*: exit $rc, stderr: $(cat "$tmp/err")"
  else ok; fi
}
finish() { echo "$1: $pass passed, $fail failed"; [ $fail -eq 0 ] && prereq_status; }
