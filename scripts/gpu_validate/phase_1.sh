# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 1: the examples (torch.profiler and WorkloadProfiler runs,
# kernel_mix under `kraken profile --kernels`, the NVML recording, nvidia-smi -q, ncu).
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

phase_1_examples() {
  if [ -z "$(need kraken)" ]; then
    "$kraken" record-nvml --out "$ex/node.nvml" --duration 900s --interval 100ms > "$res/logs/record-nvml.log" 2>&1 &
    record_pid=$!
    say "[started               ] record-nvml in the background (100 ms, until the end of phase 2)"
  fi
  for w in resnet50-train bert-infer; do
    run_if "p1.$w" 75 "gpu torch" "$py" "$gv/workloads.py" --workload "$w" --steps 20 --warmup-steps 5 \
      --profiler torch+kraken --trace "$ex/$w.pt.trace.json.gz" --kraken-dir "$ex/$w-kraken" --kraken-db "$work/kraken.db" \
      --out "$ex/$w.run.json"
  done
  if [ "$mode" = replay ]; then  # the WorkloadProfiler path on the replayed NVML, without torch
    run_if p1.stand-in-workload-profiler 30 kraken "$py" "$gv/workloads.py" --workload cpu-spin --steps 20 \
      --profiler kraken --kraken-dir "$ex/cpu-spin-kraken" --kraken-db "$work/kraken.db" --out "$ex/cpu-spin.run.json"
  fi
  # Hopper code, and its PTX, which the driver compiles for a newer GPU.
  run_if p1.kernel-mix-build 40 nvcc "$nvcc" -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 \
    -gencode arch=compute_90,code=compute_90 -o "$kernel_mix" "$gv/kernel_mix.cu"
  if [ -x "$kernel_mix" ] && [ "$mode" = gpu ]; then
    run_if p1.kernel-mix-profile 40 "kraken cupti" "$into" "$ex/kernel-mix.profile.json" "$kraken" profile --kernels \
      --kernel-trace-dir "$ex/kernel-mix-traces" --db "$work/kraken.db" --json -- "$kernel_mix" 20
  elif [ "$mode" = replay ]; then
    run_if p1.kernel-mix-profile 40 "kraken cupti fake" "$into" "$ex/kernel-mix.profile.json" \
      env KRAKEN_CUPTI_LIBRARY="$fake_cupti" KRAKEN_FAKE_CUPTI_LAUNCHES=3000 "$kraken" profile --kernels \
      --kernel-trace-dir "$ex/kernel-mix-traces" --db "$work/kraken.db" --json -- "$fake_app"
  else
    skip p1.kernel-mix-profile "kernel_mix was not built"
  fi
  if [ "$mode" = gpu ]; then
    step p1.nvidia-smi-q 20 "$into" "$ex/nvidia-smi-q.txt" nvidia-smi -q
  else
    skip p1.nvidia-smi-q "no GPU (replay mode)"
  fi
  if [ -x "$kernel_mix" ]; then
    run_if p1.ncu-kernel-mix 70 "gpu ncu" "$gv/ncu_roofline.sh" "$ncu" "$ex/ncu-kernel-mix" -- "$kernel_mix" 2
  else
    skip p1.ncu-kernel-mix "kernel_mix was not built"
  fi
}
