#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# scripts/gpu-validate.sh: the one prepared GPU run of issue 13 (part 2). It records
# kraken's examples on a real GPU, checks the CUPTI tracer against torch.profiler and the
# ncu roofline against the kernel-name rules, measures kraken's overhead, and measures
# co-location ground truth next to `kraken colocate`'s predictions. Everything lands in one
# folder, packed into at most 8 files (summary.txt + results*.tar.gz, each < 16 MiB), so
# that it fits what the device tool brings back. scripts/gpu_validate/ingest.py turns the
# tarball into examples/, examples/colocation/ and docs/validation.md (docs/validation.md).
#
# The device call (one NVIDIA H100/H200, 15 minutes of device time per session, machine
# start included; this command takes at most --budget seconds, 460 by default):
#   make bundle                      # here: dist/kraken-0.1.0-linux-x86_64.tar.gz (with libkraken_cupti.so)
#   run(command="scripts/gpu-validate.sh --bundle dist/kraken-0.1.0-linux-x86_64.tar.gz --out $OUT",
#       carry=["dist"], timeout_s=540)
#   python3 scripts/gpu_validate/ingest.py <files_at>/results.tar.gz    # here, then commit
#
# Phases, most important first (budgets in seconds of the default 460: a phase ends at its
# budget, a step at its own limit; every step logs to logs/STEP.log and its status goes into
# summary.txt; a failed step never stops the run; what cannot finish before the deadline is
# skipped, saying so). Expected times on an H100 in brackets:
#   env    40  [15]  ldd --version, uname, OS release, nvidia-smi, nvcc/ncu/python/torch, kraken
#   1     120  [90]  examples: ResNet-50 training and BERT-base inference (20 steps) under
#                    torch.profiler and kraken.WorkloadProfiler; kernel_mix.cu under `kraken
#                    profile --kernels`; `kraken record-nvml` during phases 1-2; nvidia-smi -q;
#                    ncu --csv with the roofline metrics on kernel_mix's 5 kernels
#   2      75  [60]  agreement: the same ResNet-50 / BERT steps under the CUPTI tracer (NVTX
#                    steps) vs the torch.profiler traces; ncu class vs name class (kernel_mix)
#   3      60  [50]  overhead: a GEMM worker alone, with `kraken agent` at 100 ms and 10 ms;
#                    NVML call latency; the GEMM loop with the CUPTI tracer injected
#   4    rest [180]  co-location: CUPTI profiles of GEMM and elementwise (ResNet/BERT from phase
#                    2), `kraken colocate` predictions for every pair, then measured windows:
#                    each workload alone, each pair at once (time-slicing; MPS when
#                    nvidia-cuda-mps-control exists), `kraken profile --pid` of each member
#   5    rest  [40]  extras if time is left: ncu on a ResNet-50 step (class vs name on real
#                    framework kernels); the tracer on a loop of small kernels; kernel_mix with
#                    per-kernel counters (KRAKEN_CUPTI_COUNTERS=1) vs without (replay cost), its
#                    FLOPs/DRAM bytes vs phase 1's ncu CSV (counters_check.py)
#   6    rest  [40]  actions if time is left: `kraken mig apply --dry-run` of a mig-plan plan
#                    (always --dry-run; with MIG off its refusal is the result); a profiled
#                    experiment: the controller's profile-Job ncu argv (`kraken annotate
#                    --print-ncu-command`) on kernel_mix, its log imported by `kraken analyze`
#   7     rest [230]  overhead breakdown, only when --phases names it, most important first:
#                    the agent windows (their own 40 s slice); ResNet-50 training 3 s windows,
#                    each in a fresh process: plain / tracer injected directly / + NVTX injection
#                    / under `kraken profile --kernels` / KRAKEN_CUPTI_FLUSH_MS=60000 /
#                    KRAKEN_CUPTI_ACTIVITIES=kernels / --profiler nvtx --steps 60 / plain again,
#                    each trace summarized over its measured steps (trace_summary.py: kernels
#                    and kernel time per step, kernel names, top kernels); the small-kernels loop
#                    plain / tracer / tracer kernels only / torch.profiler (CUDA only) / plain
#                    again; NVML latency; last (the first skipped), the loop under the tracer
#                    with a capture window: a delay beyond the run (the idle injection's cost)
#                    and 1 s of the measured 3 s (overhead/p7-*). The one-call form for it:
#                      scripts/gpu-validate.sh --bundle dist/kraken-0.1.0-linux-x86_64.tar.gz \
#                        --out $OUT --phases 7 --budget 300        (run timeout_s=330, ~260 s)
#   8     rest [410]  overhead targets, only when --phases names it: rounds of fresh processes,
#                    plain / tracer / tracer recording kernels only / tracer loaded but idle,
#                    CUPTI unattached and attached / CUPTI detached after a 100 ms window
#                    (small kernels, 4 rounds of 2 s windows) and plain / tracer / kernels only /
#                    kernels and API records / kernels and synchronization records
#                    (ResNet-50 training, 3 rounds of 4 s), the order reversed every other
#                    round, every process pinned to the same CPUs (taskset); a tracer window
#                    whose tracer did not record fails (p8.*-tracer) and is left out; each
#                    round's overhead against its own plain window, the median, spread and
#                    plain-to-plain noise (scripts/gpu_validate/figures_targets.py,
#                    overhead/p8-*). The one-call form: --phases 8 --budget 500 (timeout_s=530)
#   9     rest [90]  tracer features no GPU had run, only when --phases names it: a capture
#                    window started by an NVTX range (ResNet-50), a CUDA graph traced, the
#                    per-kernel counters on the graph and on two launching threads; each
#                    checked from its trace (scripts/gpu_validate/features_check.py,
#                    features/). With phase 8: --phases 8,9 --budget 560 (timeout_s=590)
#   pack   30   [5]  figures (scripts/gpu_validate/figures.py), results tarball(s), summary.txt
#
# Without a GPU (no nvidia-smi listing one) or with --replay it rehearses: NVML answered by
# libkraken_nvml_replay.so from tests/fixtures/nvml/h100.nvml, CUDA programs replaced by
# stand-ins where the build has them (the fake libcupti and CUDA app of src/collectors/cupti,
# cpu-spin workers), and every step that needs CUDA or torch skipped, saying so.
#
# Usage: scripts/gpu-validate.sh [--bundle TARBALL | --build DIR] --out DIR [--replay]
#                                [--budget SECONDS] [--quick] [--keep-work] [--phases LIST]
# --phases: the phases to run, a comma list of 1..9 (default 1,2,3,4,5,6); the environment
# and packing always run; a step whose input a skipped phase would have made is skipped,
# saying so. A second, shorter GPU call, e.g.:
#   scripts/gpu-validate.sh --bundle dist/kraken-0.1.0-linux-x86_64.tar.gz --out $OUT --phases 1,2,7 --budget 310
# or, for the per-kernel counters check (p5.counters-*: kernel_mix with and without
# KRAKEN_CUPTI_COUNTERS=1, its counters vs phase 1's ncu CSV), --phases 1,5 --budget 300.
# Never changes the GPU's settings: no nvidia-smi -pm/-pl/-lgc/-c/-mig/-r, ncu runs with
# --clock-control none; the MPS daemon runs with private pipe/log folders and is stopped.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
gv="$root/scripts/gpu_validate"
bundle="" build="" out="" force_replay=0 budget=460 quick=0 keep_work=0 phases=1,2,3,4,5,6
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --replay) force_replay=1; shift ;;
    --budget) budget=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --keep-work) keep_work=1; shift ;;
    --phases) phases=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "gpu-validate: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "gpu-validate: --out DIR is required" >&2; exit 2; }
case "$budget" in ''|*[!0-9]*) echo "gpu-validate: --budget takes whole seconds" >&2; exit 2 ;; esac
case ",$phases," in
  *[!1-9,]*|*,,*) echo "gpu-validate: --phases takes a comma list of phases 1..9, not '$phases'" >&2; exit 2 ;;
esac
want() { case ",$phases," in *",$1,"*) return 0 ;; esac; return 1; }
# not_run N NAME: the summary says that phase N was left out.
not_run() { say ""; say "== phase $1: $2: not run (--phases $phases)"; }
# The phases and their helpers: scripts/gpu_validate/phase_*.sh, functions only, loaded before
# anything runs so that a missing or broken file stops the script here, not mid-run.
load_failed() { echo "gpu-validate: cannot load $gv/$1" >&2; exit 2; }
# shellcheck source=gpu_validate/phase_lib.sh
. "$gv/phase_lib.sh" || load_failed phase_lib.sh
# shellcheck source=gpu_validate/phase_env.sh
. "$gv/phase_env.sh" || load_failed phase_env.sh
# shellcheck source=gpu_validate/phase_1.sh
. "$gv/phase_1.sh" || load_failed phase_1.sh
# shellcheck source=gpu_validate/phase_2.sh
. "$gv/phase_2.sh" || load_failed phase_2.sh
# shellcheck source=gpu_validate/phase_3.sh
. "$gv/phase_3.sh" || load_failed phase_3.sh
# shellcheck source=gpu_validate/phase_4.sh
. "$gv/phase_4.sh" || load_failed phase_4.sh
# shellcheck source=gpu_validate/phase_5.sh
. "$gv/phase_5.sh" || load_failed phase_5.sh
# shellcheck source=gpu_validate/phase_6.sh
. "$gv/phase_6.sh" || load_failed phase_6.sh
# shellcheck source=gpu_validate/phase_7.sh
. "$gv/phase_7.sh" || load_failed phase_7.sh
# shellcheck source=gpu_validate/phase_8.sh
. "$gv/phase_8.sh" || load_failed phase_8.sh
# shellcheck source=gpu_validate/phase_9.sh
. "$gv/phase_9.sh" || load_failed phase_9.sh
mkdir -p "$out" && out=$(cd "$out" && pwd)

start_s=$(date +%s)
pack_reserve=30  # figures, packing and stopping: at most 5 + 10 + 20 s past the last step
step_deadline=$((start_s + budget - pack_reserve))
work=$(mktemp -d "${TMPDIR:-/tmp}/kraken-gpu-validate.XXXXXX")
res="$work/kraken-gpu-validate"
mkdir -p "$res/logs" "$res/env" "$res/examples" "$res/agreement" "$res/overhead" "$res/colocation"
summary="$res/summary.txt"
export KRAKEN_STORAGE_PATH="$work/kraken.db"   # nothing lands in the machine's default store
export PYTHONDONTWRITEBYTECODE=1               # no __pycache__ in the copied tree
py=${PYTHON:-python3}
into="$gv/into.sh"

say() { echo "$*"; echo "$*" >> "$summary"; }
publish() { cp "$summary" "$out/summary.txt" 2>/dev/null || true; }
left() { echo $((step_deadline - $(date +%s))); }

# --- Where kraken is ---------------------------------------------------------------------
if [ -z "$bundle" ] && [ -z "$build" ]; then
  if [ -x "$root/build/src/cli/kraken" ]; then build="$root/build"
  else bundle=$(ls "$root"/dist/kraken-*-linux-*.tar.gz 2>/dev/null | head -1); fi
fi
fake_cupti="" fake_app=""
if [ -n "$bundle" ]; then
  mkdir -p "$work/bundle"
  tar -xzf "$bundle" -C "$work/bundle" || { echo "gpu-validate: cannot unpack $bundle" >&2; exit 2; }
  top=$(ls -d "$work"/bundle/kraken-* | head -1)
  kraken="$top/bin/kraken" klib="$top/lib" kpy="$top/python"
  cupti_lib="$klib/libkraken_cupti.so" replay_lib="$klib/libkraken_nvml_replay.so"
  origin="bundle $(basename "$bundle")"
else
  build=$(cd "$build" && pwd)
  kraken="$build/src/cli/kraken" klib="$build/src/capi" kpy="$build/python"
  cupti_lib="$build/src/cli/libkraken_cupti.so"
  replay_lib="$build/src/collectors/nvml/libkraken_nvml_replay.so"
  fake_cupti="$build/src/collectors/cupti/libkraken_cupti_fake.so"
  fake_app="$build/src/collectors/cupti/kraken_fake_cuda_app"
  [ -f "$fake_cupti" ] && [ -x "$fake_app" ] || fake_cupti="" fake_app=""
  origin="build tree $build"
fi
export PYTHONPATH="$kpy${PYTHONPATH:+:$PYTHONPATH}"
export KRAKEN_CUPTI_INJECTION="$cupti_lib"

mode=replay
if [ "$force_replay" = 0 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  mode=gpu
fi
if [ "$mode" = replay ]; then
  export KRAKEN_NVML_LIBRARY="$replay_lib" KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100.nvml"
fi
# Window lengths: long enough for p99 on a GPU, short in the rehearsal.
# The rehearsal's pause between measured windows is short too (windows.py --pause).
if [ "$quick" = 1 ]; then coloc_s=0.2 overhead_s=0.2 pause_s=0.05; else coloc_s=4 overhead_s=3 pause_s=0.5; fi

# --- Steps ---------------------------------------------------------------------------------
# step NAME LIMIT CMD...: runs CMD (stdout+stderr to logs/NAME.log) under a timeout of
# LIMIT seconds, cut to the deadline; records ok / failed rc=N / timeout / skipped.
step() {
  local name=$1 limit=$2; shift 2
  local remaining; remaining=$(left)
  [ "$limit" -gt "$remaining" ] && limit=$remaining
  if [ "$limit" -lt 5 ]; then skip "$name" "no time left before the deadline"; return 3; fi
  local log="$res/logs/$name.log" t0 t1 rc status
  t0=$(date +%s.%N)
  echo "\$ $*" > "$log"
  timeout --kill-after=5 "$limit" "$@" >> "$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  case $rc in
    0) status=ok ;;
    124|137) status="timeout after ${limit}s" ;;
    *) status="failed rc=$rc" ;;
  esac
  record "$name" "$status" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" "logs/$name.log" ""
  if [ $rc -ne 0 ]; then tail -n 5 "$log" | sed 's/^/      | /' | tee -a "$summary"; fi
  publish
  return $rc
}
skip() { record "$1" skipped 0 "" "$2"; publish; }
# record NAME STATUS SECONDS LOG REASON: one line in the summary, one JSON line in steps.jsonl.
record() {
  local line
  line=$(printf '[%-22s %6ss] %s' "$2" "$3" "$1")
  [ -n "$5" ] && line="$line: $5"
  say "$line"
  "$py" - "$@" >> "$res/steps.jsonl" <<'EOF'
import json, sys
name, status, seconds, log, reason = sys.argv[1:6]
print(json.dumps({"step": name, "status": status, "seconds": float(seconds), "log": log, "reason": reason}))
EOF
}
# phase NAME BUDGET: moves the deadline for the steps of a phase (never past the global one).
phase() {
  local now; now=$(date +%s)
  phase_end=$((now + $2))
  [ "$phase_end" -gt "$global_deadline" ] && phase_end=$global_deadline
  step_deadline=$phase_end
  say ""
  say "== $1 (budget $((phase_end - now))s, $((now - start_s))s elapsed)"
}
global_deadline=$step_deadline

# What a step needs, as a reason to skip it ("" when everything is there).
need() {
  local what
  for what in "$@"; do
    case $what in
      gpu) [ "$mode" = gpu ] || { echo "needs a GPU (replay mode)"; return; } ;;
      torch) [ $have_torch = 1 ] || { echo "needs torch with CUDA"; return; } ;;
      kraken) [ $kraken_ok = 1 ] || { echo "the bundle's kraken does not run here (see env.kraken-ldd)"; return; } ;;
      cupti) [ -f "$cupti_lib" ] || { echo "no libkraken_cupti.so in this kraken"; return; } ;;
      nvcc) [ -n "$nvcc" ] || { echo "nvcc not found"; return; } ;;
      ncu) [ -n "$ncu" ] || { echo "ncu not found"; return; } ;;
      fake) [ -n "$fake_cupti" ] || { echo "no stand-in CUDA program (the fake libcupti is built with the tests of a build tree)"; return; } ;;
    esac
  done
}
# run_if NAME LIMIT "NEEDS" CMD...: step NAME, or skip it with the reason.
run_if() {
  local name=$1 limit=$2 why; why=$(need $3); shift 3
  if [ -n "$why" ]; then skip "$name" "$why"; return 3; fi
  step "$name" "$limit" "$@"
}

# --- Clean-up: whatever happens, background tools stop and results get packed -----------
record_pid="" mps_dir="" packed=0
stop_recording() {
  [ -n "$record_pid" ] || return 0
  kill -TERM "$record_pid" 2>/dev/null
  wait "$record_pid" 2>/dev/null
  record_pid=""
}
stop_mps() {
  [ -n "$mps_dir" ] || return 0
  echo quit | CUDA_MPS_PIPE_DIRECTORY="$mps_dir/pipe" CUDA_MPS_LOG_DIRECTORY="$mps_dir/log" \
    timeout 10 nvidia-cuda-mps-control >/dev/null 2>&1
  mkdir -p "$res/colocation/mps-log" && cp -r "$mps_dir/log/." "$res/colocation/mps-log/" 2>/dev/null
  mps_dir=""
}
finish() {
  [ "$packed" = 1 ] && return
  packed=1
  stop_recording
  stop_mps
  say ""
  say "== figures"
  timeout 10 "$py" "$gv/figures.py" "$res" --out "$res/figures.json" 2>&1 | tee -a "$summary"
  say ""
  say "== packed ($(($(date +%s) - start_s))s elapsed)"
  cp "$summary" "$out/summary.txt"
  local packed_what
  packed_what=$(timeout 20 "$py" "$gv/pack.py" "$res" --out "$out" 2>&1) || packed_what="$packed_what
pack.py failed"
  echo "$packed_what" | tee -a "$out/summary.txt"
  [ "$keep_work" = 1 ] && echo "work folder kept: $work" || rm -rf "$work"
}
trap finish EXIT
trap 'say "stopped by a signal"; exit 130' INT TERM

# --- Environment ----------------------------------------------------------------------------
say "kraken GPU validation (scripts/gpu-validate.sh), mode: $mode, kraken from the $origin"
say "started $(date -u +%Y-%m-%dT%H:%M:%SZ), budget ${budget}s, phases $phases, output $out"
"$py" - "$res/run.json" "$mode" "$origin" "$budget" "$start_s" "$phases" <<'EOF'
import json, sys
path, mode, origin, budget, start, phases = sys.argv[1:7]
json.dump({"mode": mode, "kraken_from": origin, "budget_s": int(budget), "start_unix": int(start),
           "phases": [int(p) for p in phases.split(",")]}, open(path, "w"), indent=1)
EOF
phase "environment" 40
phase_environment

# --- Phases (scripts/gpu_validate/phase_*.sh; the header above says what each does) ------------
# Paths that several phases share, set whichever phases run: a step whose input a skipped
# phase would have made finds nothing there and is skipped, saying so.
ex="$res/examples"
kernel_mix="$work/kernel_mix"
ag="$res/agreement"
ov="$res/overhead"
p7_trace_dir="$work/p7-traces"
if want 1; then
  phase "phase 1: examples" 120
  phase_1_examples
else
  not_run 1 examples
fi
if want 2; then
  phase "phase 2: agreement" 75
  phase_2_agreement
else
  not_run 2 agreement
fi
if [ -n "$record_pid" ]; then  # started in phase 1
  stop_recording
  [ -f "$ex/node.nvml" ] && gzip -f "$ex/node.nvml"
  say "[stopped               ] record-nvml: $(tail -n 1 "$res/logs/record-nvml.log" 2>/dev/null)"
fi
mkdir -p "$work/cupti-overhead"
if want 3; then
  phase "phase 3: overhead" 60
  phase_3_overhead
else
  not_run 3 overhead
fi
if want 4; then
  phase "phase 4: co-location" "$budget"
  phase_4_colocation
else
  not_run 4 co-location
fi
if want 5; then
  phase "phase 5: extras (time left)" "$budget"
  phase_5_extras
else
  not_run 5 extras
fi
if want 6; then
  phase "phase 6: actions (time left)" "$budget"
  phase_6_actions
else
  not_run 6 actions
fi
if want 7; then
  phase "phase 7: overhead breakdown" 280
  phase_7_overhead_breakdown
else
  not_run 7 "overhead breakdown"
fi
if want 8; then
  # With phase 9 after it, phase 8 leaves it 120 s (its steps take ~90 s on an H100).
  p8_budget=$budget
  want 9 && p8_budget=$((budget - 120))
  phase "phase 8: overhead targets" "$p8_budget"
  phase_8_overhead_targets
else
  not_run 8 "overhead targets"
fi
if want 9; then
  phase "phase 9: tracer features" "$budget"
  phase_9_tracer_features
else
  not_run 9 "tracer features"
fi
exit 0
