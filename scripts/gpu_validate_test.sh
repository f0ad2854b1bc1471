#!/usr/bin/env bash
# The GPU validation script end to end without a GPU (ctest gpu_validate_replay_test), so
# that the one GPU run cannot fail on a typo: scripts/gpu-validate.sh --replay on BUILD_DIR
# (NVML replayed, the fake libcupti and CUDA app as the CUDA programs, cpu-spin workers),
# then the ingester on the tarball it packed.
# Checks: every phase ran; no step failed or timed out; what needs CUDA or torch is skipped
# with its reason; $OUT holds only summary.txt and results*.tar.gz within the device tool's
# limits; the tarball holds the run's files and its manifest; ingest.py writes
# docs/validation.md saying "not measured", and (--allow-replay) the examples, marked as a
# rehearsal. Usage: scripts/gpu_validate_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: gpu_validate_test.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "gpu_validate_test: FAIL: $*" >&2; exit 1; }
export PYTHON=${PYTHON:-/usr/bin/python3}

start=$(date +%s)
rc=0
"$root/scripts/gpu-validate.sh" --build "$build" --replay --quick --out "$tmp/out" > "$tmp/stdout.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/stdout.txt"; fail "gpu-validate.sh exited $rc"; }
elapsed=$(( $(date +%s) - start ))
summary="$tmp/out/summary.txt"
[ -s "$summary" ] || fail "no summary.txt"
show() { echo "--- summary.txt"; cat "$summary"; }

# The listing comes first, then each phase.
head -1 "$summary" | grep -q '^kraken GPU validation (scripts/gpu-validate.sh), mode: replay' || { show; fail "first line"; }
for section in "== environment" "== phase 1: examples" "== phase 2: agreement" "== phase 3: overhead" \
               "== phase 4: co-location" "== figures" "== packed"; do
  grep -q "^$section" "$summary" || { show; fail "no section '$section'"; }
done
for step in env.ldd-version env.uname env.os-release env.python env.kraken p1.stand-in-workload-profiler \
            p3.agent-overhead p3.nvml-latency p4.predictions p4.timeslice p6.mig-apply-dry-run; do
  grep -qE "^\[ok +[0-9.]+s\] $step\$" "$summary" || { show; fail "step $step did not run ok"; }
done
if grep -E '^\[(failed|timeout)' "$summary"; then show; fail "a step failed or timed out"; fi
grep -qE '^\[skipped +0s\] p1.resnet50-train: needs a GPU \(replay mode\)$' "$summary" || { show; fail "GPU skip reason"; }
grep -qE '^\[skipped +0s\] p4.mps: no GPU \(replay mode\)$' "$summary" || { show; fail "MPS skip reason"; }
if [ -f "$build/src/collectors/cupti/libkraken_cupti_fake.so" ]; then  # the stand-in CUDA program ran
  for step in p1.kernel-mix-profile p2.resnet50-train-cupti p4.gemm-cupti p5.counters-plain p5.counters-on \
              p5.counters-compare; do
    grep -qE "^\[ok +[0-9.]+s\] $step\$" "$summary" || { show; fail "step $step did not run ok"; }
  done
fi
grep -q "co-location (timeslice): not measured (stand-in workers: 12 pair rows rehearsed" "$summary" ||
  { show; fail "the figures do not say the co-location was a rehearsal"; }

# What the device tool brings back: at most 8 plain files, each < 16 MiB, < 64 MiB together.
files=$(cd "$tmp/out" && find . -mindepth 1 | sort | tr '\n' ' ')
[ "$files" = "./results.tar.gz ./summary.txt " ] || fail "unexpected files in OUT: $files"
size=$(stat -c %s "$tmp/out/results.tar.gz")
[ "$size" -lt $((16 * 1024 * 1024)) ] || fail "results.tar.gz is $size bytes"
tar -tzf "$tmp/out/results.tar.gz" > "$tmp/members.txt"
for member in MANIFEST.json summary.txt steps.jsonl run.json figures.json env/python.txt logs/p3.nvml-latency.log \
              examples/node.nvml.gz overhead/nvml-latency.json colocation/timeslice/windows.json; do
  grep -qx "kraken-gpu-validate/$member" "$tmp/members.txt" || fail "the tarball has no $member"
done
if grep -q '\.db$' "$tmp/members.txt"; then fail "a database was packed"; fi
if [ -f "$build/src/collectors/cupti/libkraken_cupti_fake.so" ]; then  # the counters of the fake's 2000 launches
  tar -xzf "$tmp/out/results.tar.gz" -C "$tmp" kraken-gpu-validate/counters/kernel-mix.json ||
    fail "the tarball has no counters/kernel-mix.json"
  "$PYTHON" -c 'import json, sys; k = json.load(open(sys.argv[1]))["kernels"]; sys.exit(0 if [r["ranges"] for r in k] == [2000] else 1)' \
    "$tmp/kraken-gpu-validate/counters/kernel-mix.json" || fail "counters/kernel-mix.json: not the fake's 2000 ranges"
fi
tar -xzf "$tmp/out/results.tar.gz" -C "$tmp" kraken-gpu-validate/steps.jsonl
"$PYTHON" - "$tmp/kraken-gpu-validate/steps.jsonl" <<'EOF' || fail "steps.jsonl"
import json, sys
steps = [json.loads(line) for line in open(sys.argv[1])]
assert all(s["status"] in ("ok", "skipped") for s in steps), [s for s in steps if s["status"] not in ("ok", "skipped")]
assert all(s["reason"] for s in steps if s["status"] == "skipped")
assert len({s["step"] for s in steps}) == len(steps), "a step name was used twice"
EOF

# The ingester on the rehearsal's tarball.
dest="$tmp/repo"
"$PYTHON" "$root/scripts/gpu_validate/ingest.py" "$tmp/out/results.tar.gz" --dest "$dest" > "$tmp/ingest.txt" ||
  fail "ingest.py: $(cat "$tmp/ingest.txt")"
grep -q "examples/ left alone" "$tmp/ingest.txt" || fail "ingest wrote examples from a rehearsal"
# The replayed H100 has MIG off: the dry run's refusal is its recorded result.
grep -q "^kraken mig apply --dry-run: exit 2 (refused): kraken: error: .*MIG" "$tmp/ingest.txt" ||
  fail "ingest: no refused MIG dry run: $(cat "$tmp/ingest.txt")"
grep -q "^profiled experiment (controller's ncu argv on kernel_mix): not run" "$tmp/ingest.txt" ||
  fail "ingest: the profiled experiment should not have run"
[ ! -d "$dest/examples" ] || fail "examples/ written from a rehearsal"
grep -q '^\*\*No GPU run yet.\*\*' "$dest/docs/validation.md" || fail "validation.md does not say there was no GPU run"
grep -q '| resnet50-train | not measured |' "$dest/docs/validation.md" || fail "validation.md agreement table"
"$PYTHON" "$root/scripts/gpu_validate/ingest.py" "$tmp/out/results.tar.gz" --dest "$dest" --allow-replay > /dev/null ||
  fail "ingest.py --allow-replay"
grep -q '^\*\*Rehearsal on the NVML replay' "$dest/examples/replay-rehearsal/README.md" || fail "examples README"
[ "$(wc -l < "$dest/examples/colocation/pairs.csv")" = 13 ] || fail "pairs.csv: want a header and 12 rows"
# A budget too short for everything: what does not fit is skipped, saying so, and the
# results are still packed, within the budget.
start=$(date +%s)
rc=0
"$root/scripts/gpu-validate.sh" --build "$build" --replay --quick --budget 40 --out "$tmp/short" > "$tmp/short.txt" 2>&1 ||
  rc=$?
short=$(( $(date +%s) - start ))
[ "$rc" = 0 ] || { cat "$tmp/short.txt"; fail "gpu-validate.sh --budget 40 exited $rc"; }
[ "$short" -le 40 ] || fail "gpu-validate.sh --budget 40 took ${short}s"
grep -q "no time left before the deadline" "$tmp/short/summary.txt" || { cat "$tmp/short/summary.txt"; fail "nothing skipped for time"; }
[ -s "$tmp/short/results.tar.gz" ] || fail "--budget 40 packed nothing"

echo "gpu_validate_test: ok: --budget 40 ended after ${short}s, packed; the rehearsal took ${elapsed}s; $(grep -c '^\[ok' "$summary") steps ok, $(grep -c '^\[skipped' "$summary") skipped with their reasons; results.tar.gz $((size / 1024)) KiB; ingest wrote docs/validation.md (not measured)"
