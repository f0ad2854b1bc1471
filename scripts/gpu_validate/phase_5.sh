# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 5: extras in the time left (ncu on a ResNet-50 step, the
# small-kernels tracer overhead, the per-kernel counters check).
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

# counters_check: kernel_mix with the tracer, without then with per-kernel counters
# (KRAKEN_CUPTI_COUNTERS=1: kernel replay), timed; then its FLOPs and DRAM bytes per kernel
# vs phase 1's ncu CSV (counters/kernel-mix.json). Rehearsal: the stand-in CUDA program and
# the fake libcupti's counters.
counters_check() {
  local cdir="$res/counters" traces="$work/counters-traces" needs cmix=() cenv=() ncu_args=() ctrace counters_preload=()
  mkdir -p "$cdir" "$traces" "$work/counters-plain"
  if [ "$mode" = gpu ]; then
    [ -x "$kernel_mix" ] || run_if p5.kernel-mix-build 40 nvcc "$nvcc" -O2 -std=c++17 \
      -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o "$kernel_mix" "$gv/kernel_mix.cu"
    needs="gpu cupti" cmix=("$kernel_mix" 20)
    # A native stack on stderr if the counters run dies of a signal (abort_backtrace.c).
    if step p5.abort-backtrace-build 20 cc -O2 -shared -fPIC -o "$work/abort_backtrace.so" "$gv/abort_backtrace.c"; then
      counters_preload=(LD_PRELOAD="$work/abort_backtrace.so")
    fi
  else
    needs="cupti fake" cmix=("$fake_app") cenv=(KRAKEN_CUPTI_LIBRARY="$fake_cupti" KRAKEN_FAKE_CUPTI_LAUNCHES=2000)
  fi
  if [ "$mode" = gpu ] && [ ! -x "$kernel_mix" ]; then skip p5.counters "kernel_mix was not built"; return; fi
  run_if p5.counters-plain 30 "$needs" env "${cenv[@]}" CUDA_INJECTION64_PATH="$cupti_lib" \
    KRAKEN_CUPTI_OUTPUT="$work/counters-plain/" "$py" "$gv/counters_check.py" run --out "$cdir/plain.json" -- "${cmix[@]}"
  # Batches of 16: kernel_mix's ~100 kernels are decoded inside launch callbacks and the
  # profiler configured again several times, not only once at exit (footer: ..._batches).
  run_if p5.counters-on 60 "$needs" env "${cenv[@]}" "${counters_preload[@]}" CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_COUNTERS=1 \
    KRAKEN_CUPTI_COUNTERS_BATCH=16 KRAKEN_CUPTI_OUTPUT="$traces/" "$py" "$gv/counters_check.py" run --out "$cdir/counters.json" -- "${cmix[@]}"
  ctrace=$(largest "$traces"/*.json)
  if [ -z "$ctrace" ]; then skip p5.counters-compare "no trace with counters (see p5.counters-on)"; return; fi
  [ -f "$ex/ncu-kernel-mix.csv" ] && ncu_args=(--ncu "$ex/ncu-kernel-mix.csv")
  step p5.counters-compare 20 "$py" "$gv/counters_check.py" compare --trace "$ctrace" "${ncu_args[@]}" \
    --plain "$cdir/plain.json" --counters "$cdir/counters.json" --out "$cdir/kernel-mix.json"
  gzip -c "$ctrace" > "$cdir/kernel-mix.counters-trace.json.gz"
}
phase_5_extras() {
  if [ -f "$(largest "$ag/resnet50-train-cupti"/*.json)" ]; then
    run_if p5.ncu-resnet50 80 "gpu ncu torch" "$gv/ncu_roofline.sh" "$ncu" "$ag/ncu-resnet50-train" --nvtx-step \
      -- "$py" "$gv/workloads.py" --workload resnet50-train --steps 1 --warmup-steps 2 --profiler nvtx
    classes "$ag/ncu-resnet50-train.csv" "$(largest "$ag/resnet50-train-cupti"/*.json)" resnet50-train p5
  else
    skip p5.ncu-resnet50 "needs the CUPTI trace of ResNet-50 (its kernel names)"
  fi
  tracer_overhead small-kernels p5
  counters_check
}
