#!/usr/bin/env bash
# The lines that say why each failed test failed, from ctest's logs in the given build
# folders, at most MAX_LINES (default 12) per test. CI prints this last: the tail of a CI
# log is often all a reader gets, and ctest prints a failed test's output hundreds of
# lines earlier, interleaved with the tests still running.
# scripts/ci-failures.sh BUILD_DIR...
set -uo pipefail
max_lines=${MAX_LINES:-12}
# What the project's tests print when a check fails: gtest, the node browser tests'
# check(), pytest, shell tests' "FAIL"/"error:", sanitizers and uncaught exceptions.
pattern='FAIL|Failure|Expected|Which is|Error|error:|assert|Timeout|timed out|runtime error|Sanitizer|Traceback|^ *(at |Actual|Value of)'
for dir in "$@"; do
  failed="$dir/Testing/Temporary/LastTestsFailed.log"
  log="$dir/Testing/Temporary/LastTest.log"
  # ctest leaves a failed list behind after a later clean run: only one as new as the log counts.
  [[ -f $failed && -f $log && ! $failed -ot $log ]] || continue
  while IFS=: read -r _ name; do
    [[ -n $name ]] || continue
    echo "ci: why $name failed ($dir):"
    awk -v test="$name" '
      $0 ~ "Test: " test "$" { found = 1; next }
      found && /^Output:/ { inside = 1; getline; next }
      inside && /^<end of output>/ { exit }
      inside' "$log" | grep -E "$pattern" | head -n "$max_lines" | sed 's/^/ci:   /'
  done < "$failed"
done
exit 0
