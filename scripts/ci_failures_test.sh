#!/usr/bin/env bash
# Tests of scripts/ci-failures.sh on real ctest runs of made-up tests: a failed test's
# failing lines are printed (not its passing ones, nor ctest's command line), a passing
# test is not named, and the failed list ctest leaves behind after a later clean run is
# not reported again.
set -uo pipefail
digest="$(cd "$(dirname "$0")" && pwd)/ci-failures.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect NAME REFUSED_PATTERN [WANT_PATTERN...]: checks the digest of $work's last ctest
# run: every WANT_PATTERN matches a line of it, REFUSED_PATTERN none.
expect() {
  local name=$1 refused=$2 out ok=1 want
  shift 2
  out=$("$digest" "$work" 2>&1)
  for want in "$@"; do grep -qE -- "$want" <<< "$out" || ok=0; done
  grep -qE -- "$refused" <<< "$out" && ok=0
  if [ "$ok" = 0 ]; then
    echo "FAIL $name: output:"; sed 's/^/    /' <<< "$out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

cat > "$work/CTestTestfile.cmake" <<'TESTS'
add_test(passes "sh" "-c" "echo '  ok: all fine'")
add_test(fails "sh" "-c" "echo 'page #/cluster'; echo '  ok: 8 rows'; echo '  FAIL: heatmap 21 of 60 bins'; exit 1")
TESTS
ctest --test-dir "$work" -j 2 > /dev/null 2>&1
expect "a failed test's failing line is printed" "passes|ok: |page #|Command" \
  "^ci: why fails failed \($work\):$" "^ci:     FAIL: heatmap 21 of 60 bins$"

sleep 1  # a later run, on a clock that tells it apart
echo 'add_test(passes "true")' > "$work/CTestTestfile.cmake"
ctest --test-dir "$work" > /dev/null 2>&1
expect "a clean run after a failed one reports nothing" "."

[ "$failures" = 0 ] && echo "all ci-failures checks passed"
exit $((failures > 0))
