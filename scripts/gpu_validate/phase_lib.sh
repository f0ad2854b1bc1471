# shellcheck shell=bash
# scripts/gpu-validate.sh: helpers that several phases call (the CUPTI-traced profile of
# phases 2 and 4, the class comparison of phases 2 and 5, the tracer overhead of 3 and 5).
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

# traced_profile W STEPS: W's steps under `kraken profile --kernels` (NVTX ProfilerStep#i
# ranges), stored in the co-location store: its kernels are W's co-location profile too.
traced_profile() {
  local w=$1 steps=$2 phase=$3 dir="$ag/$1-cupti"
  if [ "$mode" = gpu ]; then
    run_if "$phase.$w-cupti" 70 "torch kraken cupti" "$into" "$ag/$w.cupti-profile.json" "$kraken" profile --kernels \
      --kernel-trace-dir "$dir" --db "$work/coloc.db" --json -- "$py" "$gv/workloads.py" --workload "$w" \
      --steps "$steps" --warmup-steps 5 --profiler nvtx --quiet --out "$ag/$w.cupti-run.json"
  else  # the stand-in CUDA program, traced through the fake libcupti
    run_if "$phase.$w-cupti" 40 "kraken cupti fake" "$into" "$ag/$w.cupti-profile.json" \
      env KRAKEN_CUPTI_LIBRARY="$fake_cupti" KRAKEN_FAKE_CUPTI_LAUNCHES=2000 "$kraken" profile --kernels \
      --kernel-trace-dir "$dir" --db "$work/coloc.db" --json -- "$fake_app"
  fi
}
largest() { ls -S "$@" 2>/dev/null | head -1; }
# classes SOURCE_CSV TRACE NAME PHASE: kraken's class of each ncu-measured kernel vs its name class.
classes() {
  local csv=$1 trace=$2 name=$3
  if [ -f "$csv" ] && [ -n "$trace" ] && [ -f "$trace" ]; then
    step "$4.$name-ncu-analysis" 30 "$into" "$ag/$name.ncu-analysis.json" "$kraken" analyze "$csv" --json --top 1000 &&
      step "$4.$name-trace-analysis" 30 "$into" "$ag/$name.trace-analysis.json" "$kraken" analyze "$trace" --json --top 1000 &&
      step "$4.$name-classes" 20 "$py" "$gv/classes.py" "$ag/$name.ncu-analysis.json" "$ag/$name.trace-analysis.json" \
        --out "$ag/$name.classes.json"
  else
    skip "$4.$name-classes" "needs the ncu CSV and a trace of the same program"
  fi
}

# tracer_overhead W PHASE: W alone in a plain process, then in one with the tracer injected.
tracer_overhead() {
  run_if "$2.$1-plain" 25 "gpu torch" "$py" "$gv/workloads.py" --workload "$1" --seconds "$overhead_s" \
    --out "$ov/$1-plain.json"
  run_if "$2.$1-cupti" 25 "gpu torch cupti" env CUDA_INJECTION64_PATH="$cupti_lib" \
    KRAKEN_CUPTI_OUTPUT="$work/cupti-overhead/" "$py" "$gv/workloads.py" --workload "$1" --seconds "$overhead_s" \
    --out "$ov/$1-cupti.json"
}
