# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 9: the tracer's features no GPU had run (issue 13), each
# in a fresh process and checked from its trace by features_check.py. Only when --phases
# names it. Sourced by scripts/gpu-validate.sh before the run starts (functions only); they
# use its variables and helpers when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

# 1. nvtx-window: ResNet-50 training, its steps in NVTX ranges, the window opened by
#    KRAKEN_CUPTI_START_ON_NVTX=ProfilerStep#10 (NVTX handed to the tracer): the trace must
#    start at that range and hold the 20 steps after it, each with the same kernels.
# 2. graph-trace: a CUDA graph of 50 adds and multiplies replayed once a step, traced: every
#    replayed node must be a kernel record, each node once a replay (counted by graph node
#    id: run 10's trace sat ~0.8 ms before the workload's time.time(), so a time window cut
#    replays off; the check reports that offset).
# 3. graph-counters / threads-counters: the per-kernel counters (KRAKEN_CUPTI_COUNTERS=1) on
#    the graph, then on two threads launching at once on two streams, kernels whose FLOPs
#    differ 4x: how many kernels got a counter range, and how many ranges measured FLOPs
#    unlike their kernel's (a range paired with the wrong kernel). docs/kernel-counters.md
#    expects, on the graph, its captured launches and replays counted in the footer and no
#    untied range, and allows swapped pairs with threads: measured here.
#    Each profiled kernel costs ~235 ms under kernel replay (H200, run 10b: 10 passes, sys
#    time dominating), so these runs are small: no warm-up, a graph of 8 nodes replayed
#    twice, 3 steps of 4 kernels a thread (~20-30 kernels, ~6 s of replays each). Run 10
#    sized them at 20 steps of 100 kernels plus 5 warm-up steps: both timed out.
# Expected on an H100/H200: ~25 s, ~12 s, ~15 s, ~15 s with the checks: --phases 9 --budget
# 120, or after phase 8: --phases 8,9 --budget 560 (phase 8 leaves phase 9 its last 120 s).

P9_NVTX_FIRST="ProfilerStep#10"
P9_NVTX_STEPS=20

# p9_run NAME LIMIT ENV... -- WORKLOADS_ARGS...: workloads.py under the tracer in a fresh
# process; its trace in $work/p9/NAME/, its result in features/NAME.run.json.
p9_run() {
  local name=$1 limit=$2 vars=(); shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  mkdir -p "$work/p9/$name"
  run_if "p9.$name" "$limit" "gpu torch cupti" env CUDA_INJECTION64_PATH="$cupti_lib" \
    KRAKEN_CUPTI_OUTPUT="$work/p9/$name/" "${vars[@]}" "$py" "$gv/workloads.py" --quiet \
    --out "$res/features/$name.run.json" "$@"
}

# p9_check NAME CHECK ARGS...: features_check.py CHECK on NAME's trace; the trace packed.
p9_check() {
  local name=$1 check=$2 trace; shift 2
  trace=$(largest "$work/p9/$name"/*.json)
  if [ -z "$trace" ]; then skip "p9.$name-check" "no trace (see p9.$name)"; return 0; fi
  step "p9.$name-check" 60 "$py" "$gv/features_check.py" "$check" --trace "$trace" \
    --out "$res/features/$name.json" "$@"
  gzip -c "$trace" > "$res/features/$name.trace.json.gz"
}

phase_9_tracer_features() {
  mkdir -p "$res/features"
  local steps=$((10 + P9_NVTX_STEPS))
  p9_run nvtx-window 90 NVTX_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_START_ON_NVTX="$P9_NVTX_FIRST" \
    -- --workload resnet50-train --profiler nvtx --steps "$steps" --warmup-steps 2
  p9_check nvtx-window nvtx-window --first "$P9_NVTX_FIRST" --steps "$P9_NVTX_STEPS"
  p9_run graph-trace 40 -- --workload graph-kernels --seconds "$([ "$quick" = 1 ] && echo 0.5 || echo 2)"
  p9_check graph-trace graph --run "$res/features/graph-trace.run.json"
  p9_run graph-counters 60 KRAKEN_CUPTI_COUNTERS=1 -- --workload graph-kernels --batch 8 --warmup-steps 0 --steps 2
  p9_check graph-counters counters
  p9_run threads-counters 60 KRAKEN_CUPTI_COUNTERS=1 -- --workload threads-kernels --batch 8 --warmup-steps 0 \
    --steps 3
  p9_check threads-counters counters
}
