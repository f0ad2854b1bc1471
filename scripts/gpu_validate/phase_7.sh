# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 7: the overhead breakdown, only when --phases names it.
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

# Order by importance (run 2 left the agent windows no time): the agent windows with their own
# slice; then the ResNet-50 puzzle of run 2 (tracer injected directly: -20 %; the same tracer
# under `kraken profile --kernels` in phase 2: 0 %), one difference per window, bracketed by
# plain runs; the traces' summaries; the small-kernels loop; NVML latency if time is left.
# Expected on an H100: env ~22 s, agent ~20 s, 8 ResNet windows 8 x 14-18 s, summaries ~15 s,
# 5 small-kernels windows 5 x 8-12 s: ~250 s of --budget 300 with the 30 s packing reserve;
# the 2 capture-window windows (2 x 8-10 s) after them make ~270 s, all of the 270 s before
# packing: they run last, so they are the ones skipped when the run is slower.

# p7_window NAME WORKLOAD NEEDS [VAR=VALUE...] [-- WORKLOAD_ARGS...]: one window of WORKLOAD
# in a fresh process with VAR=VALUE in its environment; the result in overhead/p7-NAME.json.
# A run with the tracer (CUDA_INJECTION64_PATH among the VARs) keeps its trace in
# $p7_trace_dir/NAME/. --seconds unless WORKLOAD_ARGS name --steps.
p7_window() {
  local name=$1 w=$2 needs=$3 vars=() length=(--seconds "$overhead_s"); shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  case " $* " in *" --steps "*) length=() ;; esac
  case " ${vars[*]} " in *" CUDA_INJECTION64_PATH="*)
    [ -z "$(need $needs)" ] && mkdir -p "$p7_trace_dir/$name"; vars+=(KRAKEN_CUPTI_OUTPUT="$p7_trace_dir/$name/") ;; esac
  p7_fits "p7.$name" "$w" || return 3
  run_if "p7.$name" 30 "$needs" env "${vars[@]}" "$py" "$gv/workloads.py" --workload "$w" "${length[@]}" \
    "$@" --out "$ov/p7-$name.json"
}
# p7_fits STEP WORKLOAD: false (and the step skipped) when a window of WORKLOAD cannot end
# before the deadline: a ResNet-50 process takes ~15 s, a small-kernels one ~8 s.
p7_fits() {
  local need=10
  case $2 in resnet50-*) need=18 ;; esac
  [ "$quick" = 1 ] && need=5
  [ "$(left)" -ge "$need" ] && return 0
  skip "$1" "no time left before the deadline (a window needs ~${need}s)"
  return 1
}
# p7_summaries PREFIX...: trace_summary.py on the trace of each traced window whose name
# starts with a PREFIX (overhead/p7-traces/NAME.json); the traces themselves stay here.
p7_summaries() {
  local prefix dir name trace run_args
  mkdir -p "$ov/p7-traces"
  for prefix in "$@"; do
    for dir in "$p7_trace_dir/$prefix"*/; do
      [ -d "$dir" ] || continue
      name=$(basename "$dir") trace=$(largest "$dir"*.json)
      if [ -z "$trace" ]; then skip "p7.summary-$name" "no trace (its window was skipped or failed)"; continue; fi
      run_args=()
      [ -f "$ov/p7-$name.json" ] && run_args=(--run "$ov/p7-$name.json")
      step "p7.summary-$name" 30 "$py" "$gv/trace_summary.py" --trace "$trace" "${run_args[@]}" \
        --label "$name" --out "$ov/p7-traces/$name.json"
    done
  done
}
phase_7_overhead_breakdown() {
  mkdir -p "$p7_trace_dir"
  tracer=(CUDA_INJECTION64_PATH="$cupti_lib")
  # The agent windows first, with a slice of their own (4 windows of $overhead_s s + start-up).
  agent_end=$(( $(date +%s) + 40 ))
  [ "$agent_end" -gt "$phase_end" ] && agent_end=$phase_end
  if [ "$mode" = gpu ]; then
    run_if p7.agent-overhead 40 "torch kraken" "$py" "$gv/windows.py" agent-overhead --pause "$pause_s" --workload gemm --kraken "$kraken" \
      --out "$ov/p7-agent" --seconds "$overhead_s" --deadline "$agent_end"
  else
    run_if p7.agent-overhead 40 kraken "$py" "$gv/windows.py" agent-overhead --pause "$pause_s" --workload gemm --stand-in \
      --kraken "$kraken" --out "$ov/p7-agent" --seconds "$overhead_s" --deadline "$agent_end"
  fi
  # Issue 13's targets: < 1 % on ResNet-50 training, < 3 % on small kernels. Each traced window
  # differs from run 2's direct injection (resnet50-train-cupti) in one thing.
  rn=resnet50-train
  p7_window $rn-plain $rn "gpu torch"
  p7_window $rn-cupti $rn "gpu torch cupti" "${tracer[@]}"
  p7_window $rn-cupti-nvtx-inj $rn "gpu torch cupti" "${tracer[@]}" NVTX_INJECTION64_PATH="$cupti_lib"
  # As phase 2 (kraken's environment: NVTX injection, quiet, its own trace folder), over a window.
  mkdir -p "$p7_trace_dir/$rn-kraken-profile"
  p7_fits p7.$rn-kraken-profile $rn && run_if p7.$rn-kraken-profile 35 "gpu torch kraken cupti" "$into" \
    "$ov/p7-$rn-kraken-profile.profile.json" "$kraken" profile --kernels --kernel-trace-dir "$p7_trace_dir/$rn-kraken-profile" \
    --db "$work/p7.db" --json -- "$py" "$gv/workloads.py" --workload $rn --seconds "$overhead_s" --quiet \
    --out "$ov/p7-$rn-kraken-profile.json"
  p7_window $rn-cupti-flush-60s $rn "gpu torch cupti" "${tracer[@]}" KRAKEN_CUPTI_FLUSH_MS=60000
  p7_window $rn-cupti-kernels $rn "gpu torch cupti" "${tracer[@]}" KRAKEN_CUPTI_ACTIVITIES=kernels
  p7_window $rn-cupti-nvtx-steps $rn "gpu torch cupti" "${tracer[@]}" -- --profiler nvtx --steps 60
  p7_window $rn-plain2 $rn "gpu torch"
  # What each traced window's GPU did in its measured steps (kernels, kernel time, names).
  if [ "$mode" = replay ] && [ -n "$fake_cupti" ]; then
    # Rehearsal: the stand-in CUDA program traced with the fake libcupti, so the summaries run.
    mkdir -p "$p7_trace_dir/stand-in"
    step p7.stand-in-trace 20 env CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_LIBRARY="$fake_cupti" \
      KRAKEN_FAKE_CUPTI_LAUNCHES=2000 KRAKEN_CUPTI_ACTIVITIES=kernels KRAKEN_CUPTI_OUTPUT="$p7_trace_dir/stand-in/" \
      "$fake_app"
    # And a capture window (the small-kernels windows at the end): 50 ms from 100 ms on, of 300.
    mkdir -p "$p7_trace_dir/stand-in-window"
    step p7.stand-in-window-trace 20 env CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_LIBRARY="$fake_cupti" \
      KRAKEN_FAKE_CUPTI_LAUNCHES=-1 KRAKEN_FAKE_CUPTI_PER_FLUSH=100000 KRAKEN_CUPTI_ACTIVITIES=kernels \
      KRAKEN_CUPTI_DELAY_MS=100 KRAKEN_CUPTI_DURATION_MS=50 KRAKEN_CUPTI_OUTPUT="$p7_trace_dir/stand-in-window/" \
      "$fake_app" 300
  fi
  p7_summaries resnet50-train- stand-in
  # Launch-bound: what of the tracer's cost is the kernel records alone, and what
  # torch.profiler's CUDA recording costs on the same loop.
  sk=small-kernels
  p7_window $sk-plain $sk "gpu torch"
  p7_window $sk-cupti $sk "gpu torch cupti" "${tracer[@]}"
  p7_window $sk-cupti-kernels $sk "gpu torch cupti" "${tracer[@]}" KRAKEN_CUPTI_ACTIVITIES=kernels
  p7_window $sk-torch-cuda $sk "gpu torch" -- --profiler torch-cuda-noexport
  p7_window $sk-plain2 $sk "gpu torch"
  step p7.nvml-latency 20 "$py" "$gv/nvml_latency.py" --out "$ov/p7-nvml-latency.json" \
    ${KRAKEN_NVML_LIBRARY:+--library "$KRAKEN_NVML_LIBRARY"}
  # The capture window (docs/kernel-capture.md): a delay beyond the process's life records
  # nothing, so this is the cost of the loaded, idle injection (expected ~0 %); 1 s recorded
  # from 1 s after CUDA started, inside the measured 3 s (expected about a third of the full
  # tracer's cost), its trace complete before the process ends.
  p7_window $sk-cupti-delay-beyond $sk "gpu torch cupti" "${tracer[@]}" KRAKEN_CUPTI_DELAY_MS=600000
  p7_window $sk-cupti-window-1s $sk "gpu torch cupti" "${tracer[@]}" KRAKEN_CUPTI_DELAY_MS=1000 \
    KRAKEN_CUPTI_DURATION_MS=1000
  p7_summaries small-kernels-
}
