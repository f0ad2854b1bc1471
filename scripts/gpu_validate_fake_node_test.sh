#!/usr/bin/env bash
# scripts/gpu-validate.sh on a stand-in GPU node (ctest gpu_validate_fake_node_test): the
# branches only a GPU run takes, end to end, so that none of them meets a typo first on the
# GPU. Stand-ins (scripts/gpu_validate/tests/fake_node/): nvidia-smi, ncu (prints real ncu
# exports of the shared data), nvidia-cuda-mps-control, and torch/torchvision/transformers
# modules that do no work, whose CUDA start injects kraken's tracer over the fake libcupti;
# NVML is the replay library. Real: kraken, its tracer, nvcc (when /usr/local/cuda has it),
# every helper. Expected to fail, for want of a GPU: kernel_mix under `kraken profile
# --kernels` and under the tracer with and without per-kernel counters (no CUDA driver), the CUPTI vs torch.profiler comparisons (the fake libcupti
# records no NVTX steps) and the ResNet-50 class comparison (the ncu stand-in's kernels are
# not ResNet-50's). Every other step must pass, the MPS daemon must be started and stopped,
# and ingest.py must write measured-looking tables from the packed results. Every phase
# runs, 7, 8 and 9 (the overhead breakdown and targets, the tracer's features: only when
# asked) too.
# Usage: scripts/gpu_validate_fake_node_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: gpu_validate_fake_node_test.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
data=${KRAKEN_DATA_DIR:-${KRAKEN_DEFAULT_DATA_DIR:-$root/../shared/data}}
node="$root/scripts/gpu_validate/tests/fake_node"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "gpu_validate_fake_node_test: FAIL: $*" >&2; [ -f "$tmp/out/summary.txt" ] && cat "$tmp/out/summary.txt" >&2; exit 1; }
fake_cupti="$build/src/collectors/cupti/libkraken_cupti_fake.so"
[ -f "$fake_cupti" ] || { echo "gpu_validate_fake_node_test: needs the fake libcupti (a build with the CUPTI tracer)"; exit 1; }
for f in ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv ncu/gtx1080-cc6.1_vectoradd_page-raw_all-metrics.csv; do
  [ -f "$data/$f" ] || fail "shared data file missing: $data/$f (KRAKEN_DATA_DIR)"
done
export PYTHON=${PYTHON:-/usr/bin/python3}

rc=0
env PATH="$node/bin:$PATH" PYTHONPATH="$node/python" KRAKEN_CUPTI_LIBRARY="$fake_cupti" \
  KRAKEN_NVML_LIBRARY="$build/src/collectors/nvml/libkraken_nvml_replay.so" \
  KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100.nvml" \
  KRAKEN_NCU_DETAILS="$data/ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv" \
  KRAKEN_NCU_RAW="$data/ncu/gtx1080-cc6.1_vectoradd_page-raw_all-metrics.csv" \
  "$root/scripts/gpu-validate.sh" --build "$build" --quick --out "$tmp/out" --phases 1,2,3,4,5,6,7,8,9 \
  > "$tmp/stdout.txt" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$tmp/stdout.txt"; fail "gpu-validate.sh exited $rc"; }
summary="$tmp/out/summary.txt"
head -1 "$summary" | grep -q 'mode: gpu,' || fail "not in GPU mode"

expected_failures="p1.kernel-mix-profile p2.resnet50-train-compare p2.bert-infer-compare p5.resnet50-train-classes"
expected_failures+=" p5.counters-plain p5.counters-on"
# Phase 9's checks: the fake libcupti's made-up kernels are no NVTX steps, no graph's
# replays and carry no counters; the runs themselves must pass.
expected_failures+=" p9.nvtx-window-check p9.graph-trace-check p9.graph-counters-check p9.threads-counters-check"
failed=$(sed -n 's/^\[\(failed\|timeout\)[^]]*\] \([^ :]*\).*/\2/p' "$summary" | sort | tr '\n' ' ')
want=$(echo "$expected_failures" | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$failed" = "$want" ] || fail "failed steps: '$failed', expected '$want'"
for step in env.nvidia-smi env.gpu-query env.ncu p1.resnet50-train p1.bert-infer p1.nvidia-smi-q p1.ncu-kernel-mix \
            p2.resnet50-train-cupti p2.bert-infer-cupti p3.agent-overhead p3.gemm-plain p3.gemm-cupti p3.nvml-latency \
            p4.gemm-cupti p4.elementwise-cupti p4.predictions p4.timeslice p4.mps-start p4.mps p4.mps-servers \
            p5.ncu-resnet50 p5.small-kernels-plain p5.small-kernels-cupti p6.mig-apply-dry-run p6.profile-run \
            p7.agent-overhead p7.resnet50-train-plain p7.resnet50-train-cupti p7.resnet50-train-cupti-nvtx-inj \
            p7.resnet50-train-kraken-profile p7.resnet50-train-cupti-flush-60s p7.resnet50-train-cupti-kernels \
            p7.resnet50-train-cupti-nvtx-steps p7.resnet50-train-plain2 p7.summary-resnet50-train-cupti \
            p7.summary-resnet50-train-kraken-profile p7.summary-resnet50-train-cupti-kernels \
            p7.summary-small-kernels-cupti-kernels p7.small-kernels-plain p7.small-kernels-cupti \
            p7.small-kernels-cupti-kernels p7.small-kernels-torch-cuda p7.small-kernels-plain2 p7.nvml-latency \
            p8.small-kernels-plain-1 p8.small-kernels-cupti-1 p8.small-kernels-cupti-kernels-1 \
            p8.small-kernels-cupti-idle-1 p8.small-kernels-cupti-idle-attached-1 p8.small-kernels-cupti-after-window-1 \
            p8.small-kernels-cupti-after-window-2 p8.small-kernels-cupti-idle-attached-2 \
            p8.small-kernels-cupti-idle-2 p8.small-kernels-cupti-kernels-2 \
            p8.small-kernels-cupti-2 p8.small-kernels-plain-2 p8.resnet50-train-plain-1 p8.resnet50-train-cupti-1 \
            p8.resnet50-train-cupti-all-1 p8.resnet50-train-cupti-kernels-1 \
            p8.resnet50-train-cupti-kernels-2 p8.resnet50-train-cupti-all-2 \
            p8.resnet50-train-cupti-2 p8.resnet50-train-plain-2 \
            p9.nvtx-window p9.graph-trace p9.graph-counters p9.threads-counters; do
  grep -qE "^\[ok +[0-9.]+s\] $step\$" "$summary" || fail "step $step did not run ok"
done
grep -q "co-location (mps): measured slowdown vs kraken's prediction" "$summary" || fail "no MPS figures"
grep -qE "^  small-kernels   cupti-kernels   [0-9.]+/s overhead [-+][0-9.]+ %$" "$summary" || fail "no breakdown figures"
grep -qE "^    resnet50-train-kraken-profile +step p50 [0-9.]+ ms, " "$summary" || fail "no traced-window figures"
grep -qE "^  resnet50-train  plain2 vs plain \(noise\) [-+][0-9.]+ %$" "$summary" || fail "no breakdown noise"
# Phase 8: the second round ran its variants in reverse order; figures for both workloads.
order=$(sed -n 's/^\[ok [^]]*\] p8\.small-kernels-\([a-z-]*\)-2$/\1/p' "$summary" | tr '\n' ' ')
[ "$order" = "cupti-after-window cupti-idle-attached cupti-idle cupti-kernels cupti plain " ] ||
  fail "phase 8's second round ran '$order'"
grep -qE "^  small-kernels   cupti         [-+][0-9.]+ % \([-+][0-9.]+ % to [-+][0-9.]+ %, 2 rounds\); target < 3 %: " \
  "$summary" || fail "no phase-8 figures"
grep -qE "^  resnet50-train  cupti-kernels [-+][0-9.]+ % \([-+][0-9.]+ % to [-+][0-9.]+ %, 2 rounds\); target < 1 %: " \
  "$summary" || fail "no phase-8 kernels-only figures"
grep -qE "^  resnet50-train  cupti-all     [-+][0-9.]+ % \([-+][0-9.]+ % to [-+][0-9.]+ %, 2 rounds\)$" \
  "$summary" || fail "no phase-8 figures of every record (the default until run 10)"
! grep -q "cupti-sync" "$summary" || fail "run 10's cupti-sync variant shown though not run"
# (A tracer window whose tracer did not record is a failed p8.*-tracer step: the failed-steps check above.)
grep -qE "^  resnet50-train  plain round to round \(noise\) at most [0-9.]+ %$" "$summary" || fail "no phase-8 noise"
# A bad phase list is refused before anything runs.
rc=0
"$root/scripts/gpu-validate.sh" --build "$build" --out "$tmp/bad" --phases 1,0 2> "$tmp/bad.txt" || rc=$?
[ "$rc" = 2 ] && grep -q "^gpu-validate: --phases takes a comma list of phases 1..9, not '1,0'$" "$tmp/bad.txt" ||
  fail "--phases 1,0: exit $rc, $(cat "$tmp/bad.txt")"

tar -xzf "$tmp/out/results.tar.gz" -C "$tmp"
res="$tmp/kraken-gpu-validate"
control=$(tr '\n' ' ' < "$res/colocation/mps-log/control.log")
[[ "$control" == "start (pipe "*") get_server_list quit " ]] || fail "MPS daemon: $control"
for f in features/nvtx-window.json features/threads-counters.json features/graph-trace.trace.json.gz \
         examples/resnet50-train.pt.trace.json.gz examples/resnet50-train-kraken/resnet50-train.kraken.html \
         examples/ncu-kernel-mix.csv agreement/resnet50-train.cupti-run.json colocation/predictions/gemm+elementwise.json \
         colocation/mps/windows.json overhead/gemm-cupti.json; do
  [ -s "$res/$f" ] || fail "$f missing from the results"
done

dest="$tmp/repo"
"$PYTHON" "$root/scripts/gpu_validate/ingest.py" "$tmp/out/results.tar.gz" --dest "$dest" > "$tmp/ingest.txt" ||
  fail "ingest.py: $(cat "$tmp/ingest.txt")"
# The profile Job's argv ran (the ncu stand-in prints the shared raw export) and was imported.
grep -qE "^profiled experiment: ncu exited 0; [1-9][0-9]* kernels imported, workload bound [a-z]+$" "$tmp/ingest.txt" ||
  fail "ingest: profiled experiment: $(cat "$tmp/ingest.txt")"
[ "$(sed -n '1p;$p' "$res/actions/profile-run.argv.txt" | tr '\n' ' ')" = "ncu 2 " ] || fail "profile-run argv"
grep -q "^kraken mig apply --dry-run: exit 2 (refused)" "$tmp/ingest.txt" || fail "ingest: MIG dry run"
grep -q "| GPU | NVIDIA H100 80GB HBM3 (81559 MiB" "$dest/examples/nvidia-h100-80gb-hbm3/README.md" || fail "examples README"
[ "$(wc -l < "$dest/examples/colocation/pairs.csv")" = 25 ] || fail "pairs.csv: want a header and 24 rows"
grep -qE '^Model error over 12 workload-pairs: mean \|error\| [0-9.]+ %' "$dest/docs/validation.md" ||
  fail "validation.md has no model error"
echo "gpu_validate_fake_node_test: ok: $(grep -c '^\[ok' "$summary") steps ok, the expected $(echo $expected_failures | wc -w) failed for want of a GPU; ingest wrote examples/nvidia-h100-80gb-hbm3, examples/colocation (24 rows), docs/validation.md"
