#!/usr/bin/env bash
# `make demo` where ../shared is missing (a user's own clone): it must still run kraken's main
# job on what the repository ships and say which input it used.
# Usage: scripts/demo_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
log=$(KRAKEN_DATA_DIR=/nonexistent/shared/data KRAKEN_DEMO_OUT="$out" "$(dirname "$0")/demo.sh" "$build" 2>&1) || {
  echo "FAIL: the demo exited $? without shared data:"; echo "$log"; exit 1; }
fail() { echo "FAIL: $*"; echo "$log"; exit 1; }
grep -qE '^Demo input: (a recording in examples/|no recording in examples/ and no shared data at /nonexistent/shared/data: `kraken profile` of a 3 s command on the NVML replay)' <<< "$log" ||
  fail "the demo does not say that it used the shipped input"
for f in report.txt report.json report.html demo.db; do [ -s "$out/$f" ] || fail "$f is missing or empty"; done
grep -q '"NVIDIA H100' "$out/report.json" || grep -q 'examples/' <<< "$log" || fail "report.json does not describe the replayed H100"
grep -q "Report: $out/report.html" <<< "$log" || fail "the demo does not print where the report is"
echo "ok: $(grep '^Demo input:' <<< "$log")"
# With a recording in examples/, the demo never reaches its last fallback: run that one too.
if grep -q '^Demo input: a recording in examples/' <<< "$log"; then
  grep -q 'Device: NVIDIA' "$out/report.txt" || fail "the recorded example's report names no NVIDIA device"
  log=$(KRAKEN_DEMO_INPUT=replay KRAKEN_DEMO_OUT="$out/replay" "$(dirname "$0")/demo.sh" "$build" 2>&1) || {
    echo "FAIL: the demo exited $? with KRAKEN_DEMO_INPUT=replay:"; echo "$log"; exit 1; }
  grep -q '^Demo input: KRAKEN_DEMO_INPUT=replay: `kraken profile` of a 3 s command on the NVML replay' <<< "$log" ||
    fail "KRAKEN_DEMO_INPUT=replay does not say that it used the replay"
  grep -q '"NVIDIA H100' "$out/replay/report.json" || fail "the replayed report.json does not describe the H100"
  echo "ok: $(grep '^Demo input:' <<< "$log")"
fi
