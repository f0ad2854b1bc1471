# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 8: issue 13's tracer overhead targets, measured so that the
# noise is known. Only when --phases names it. Sourced by scripts/gpu-validate.sh before
# the run starts (functions only); they use its variables and helpers when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

# Why a phase of its own: phase 7 ran each variant once, and two plain processes of the same
# loop were 6.5 % (ResNet-50) and 24 % (small kernels) apart, more than the targets (< 1 %,
# < 3 %). Here each workload runs in rounds of fresh processes, plain / tracer / tracer loaded
# but idle (a capture delay beyond the run), the order reversed every other round so that a
# drift of the machine weighs on every variant alike; every process is pinned to the same
# CPUs (taskset, when there is one) so that no variant meets other cores or NUMA nodes. Each
# round's overhead is against its own plain window; figures_targets.py reports the median,
# the spread and the plain-to-plain noise between rounds.
# Expected on an H100/H200: small-kernels ~8 s a process, ResNet-50 ~18 s: 4 rounds of 6
# (~200 s) and 3 rounds of 4 (~210 s) fit --budget 480 with the environment and packing.

# cupti-kernels (KRAKEN_CUPTI_ACTIVITIES=kernels): run 3 put most of the small-kernels cost in
# CUPTI's API records (~6 us a launch), so the kernels-only tracer is measured beside the default.
# Run 10 (H200) measured kernels plus one kind of record in rounds: API calls +2 %,
# synchronizations +17 % on ResNet-50, so the tracer's default left the synchronization
# records out (KRAKEN_CUPTI_ACTIVITIES=all brings them back). cupti-all, the old default,
# runs beside the new one (cupti) so that the two are compared in the same rounds; the
# figures still know run 10's cupti-api and cupti-sync (p8_window still runs them).
# cupti-idle-attached and cupti-after-window (run 11 on): after run 10 the tracer attaches CUPTI
# when a delayed window opens (cupti-idle: no CUPTI call in the process) and detaches it
# after a window that ends (cupti-after-window: a 100 ms window in CUDA's start-up, then the
# measured loop detached); cupti-idle-attached (KRAKEN_CUPTI_DETACH=0) is the tracer as it
# was, CUPTI attached from cuInit with nothing enabled, the cost both are to remove.
P8_VARIANTS_SMALL=(plain cupti cupti-kernels cupti-idle cupti-idle-attached cupti-after-window)
P8_VARIANTS_RESNET=(plain cupti cupti-all cupti-kernels)
P8_ROUNDS_SMALL=4
P8_ROUNDS_RESNET=3

# p8_cpus: the CPUs every phase-8 process is pinned to ("" when taskset is missing or the
# machine has fewer than 8): four, away from CPU 0 where interrupts and system work land,
# so that the launching thread, CUDA's threads and the tracer's writer have a core each.
p8_cpus() {
  command -v taskset >/dev/null || return 0
  [ "$(nproc 2>/dev/null || echo 1)" -ge 8 ] && echo 2-5
}

# p8_window WORKLOAD VARIANT ROUND SECONDS: one window in a fresh process; the result in
# overhead/p8-WORKLOAD-VARIANT-ROUND.json (the tracer's trace stays in the work folder).
p8_window() {
  local w=$1 variant=$2 round=$3 seconds=$4 name="p8.$1-$2-$3" vars=() pin=()
  local needs="gpu torch" traces="$work/p8-traces/$1-$2-$3"
  case $variant in
    cupti) vars=(CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_OUTPUT="$traces/") needs+=" cupti" ;;
    # cupti-kernels, cupti-all, cupti-api, cupti-sync: KRAKEN_CUPTI_ACTIVITIES=kernels / all / api / sync.
    cupti-kernels|cupti-all|cupti-api|cupti-sync) vars=(CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_ACTIVITIES="${variant#cupti-}"
                                              KRAKEN_CUPTI_OUTPUT="$traces/") needs+=" cupti" ;;
    # Loaded, never recording: what the injection costs before its window opens.
    cupti-idle) vars=(CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_DELAY_MS=600000
                      KRAKEN_CUPTI_OUTPUT="$traces/") needs+=" cupti" ;;
    cupti-idle-attached) vars=(CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_DELAY_MS=600000 KRAKEN_CUPTI_DETACH=0
                               KRAKEN_CUPTI_OUTPUT="$traces/") needs+=" cupti" ;;
    # A window over CUDA's start-up only: the measured loop runs after CUPTI's detach.
    cupti-after-window) vars=(CUDA_INJECTION64_PATH="$cupti_lib" KRAKEN_CUPTI_DURATION_MS=100
                              KRAKEN_CUPTI_OUTPUT="$traces/") needs+=" cupti" ;;
  esac
  [ -n "$p8_pin" ] && pin=(taskset -c "$p8_pin")
  mkdir -p "$traces"
  run_if "$name" $((${seconds%.*} + 25)) "$needs" env "${vars[@]}" "${pin[@]}" "$py" "$gv/workloads.py" --workload "$w" \
    --seconds "$seconds" --quiet --out "$ov/p8-$w-$variant-$round.json" || return 0
  [ "$variant" = plain ] || p8_check_tracer "$name" "$variant" "$traces" "$ov/p8-$w-$variant-$round.json"
}

# p8_check_tracer NAME VARIANT TRACES RESULT: a tracer window counts only when the tracer
# did what the variant says (its line on stderr; a recording variant, its trace in TRACES). Else a
# failed step NAME-tracer says why and RESULT is set aside (*.untraced.json), so that no
# figure compares a plain run with a plain run: on the H100 (run of 2026-11-28) a missing
# trace folder left every "cupti" window untraced and its "overhead" was -8 %.
p8_check_tracer() {
  local name=$1 variant=$2 traces=$3 result=$4 log="$res/logs/$1.log" why=""
  if grep -qE '^kraken-cupti: (no kernel trace|the trace .* is incomplete)' "$log"; then
    why=$(grep -m1 -E '^kraken-cupti: ' "$log")
  elif [[ "$variant" != cupti-idle* ]]; then
    grep -q '^kraken-cupti: recording the CUDA activity' "$log" || why="no 'kraken-cupti: recording' line"
    [ -n "$why" ] || ls "$traces"/kraken_cupti_*.json >/dev/null 2>&1 || why="no trace in $traces"
    if [ -z "$why" ] && [ "$variant" = cupti-after-window ]; then
      grep -q '^kraken-cupti: CUPTI detached from pid' "$log" || why="no 'kraken-cupti: CUPTI detached' line"
    fi
  else
    grep -q '^kraken-cupti: will record the CUDA activity' "$log" || why="no 'kraken-cupti: will record' line"
  fi
  [ -n "$why" ] || return 0
  record "$name-tracer" failed 0 "logs/$name.log" "$why"
  mv "$result" "${result%.json}.untraced.json" 2>/dev/null || true
  publish
}

# p8_rounds WORKLOAD ROUNDS SECONDS PROCESS_S VARIANT...: ROUNDS rounds of every variant, the
# order reversed in odd rounds; stops, saying so, when a whole round no longer fits.
p8_rounds() {
  local w=$1 rounds=$2 seconds=$3 process_s=$4 round variant order i; shift 4
  local variants=("$@")
  for ((round = 1; round <= rounds; round++)); do
    if [ "$(left)" -lt $((process_s * ${#variants[@]})) ]; then
      skip "p8.$w-round-$round" "no time left for a round of ${#variants[@]} (~$((process_s * ${#variants[@]}))s)"
      return 0
    fi
    order=("${variants[@]}")
    if ((round % 2 == 0)); then
      order=()
      for ((i = ${#variants[@]} - 1; i >= 0; i--)); do order+=("${variants[$i]}"); done
    fi
    for variant in "${order[@]}"; do p8_window "$w" "$variant" "$round" "$seconds"; done
  done
}

phase_8_overhead_targets() {
  p8_pin=$(p8_cpus)
  say "  phase 8 processes pinned to CPUs: ${p8_pin:-none (no taskset, or under 8 CPUs)}"
  echo "${p8_pin:-none}" > "$ov/p8-cpus.txt"
  # Which CPUs share a core: run 8's pinned small-kernels processes ran at either ~1.5 or
  # ~2.1 ms a step (on that H200 VM no two CPUs shared one, so the topology did not explain it).
  grep -H . /sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings_list > "$ov/p8-topology.txt" 2>/dev/null || true
  local small_s=2 resnet_s=4 small_process_s=9 resnet_process_s=19 small_rounds=$P8_ROUNDS_SMALL
  local resnet_rounds=$P8_ROUNDS_RESNET
  # The rehearsal: two rounds (one of each order) of 0.2 s windows.
  if [ "$quick" = 1 ]; then small_s=0.2 resnet_s=0.2 small_process_s=3 resnet_process_s=3 small_rounds=2 resnet_rounds=2; fi
  p8_rounds small-kernels "$small_rounds" "$small_s" "$small_process_s" "${P8_VARIANTS_SMALL[@]}"
  p8_rounds resnet50-train "$resnet_rounds" "$resnet_s" "$resnet_process_s" "${P8_VARIANTS_RESNET[@]}"
}
