#!/usr/bin/env bash
# `make demo`: runs kraken's main job on an example, writes its reports and a store for the
# dashboard, and prints where they are and which input was used. The input, in this order:
#   1. a recording in examples/ (made on a real GPU by scripts/gpu-validate.sh);
#   2. a real public trace from the shared data (../shared/data or $KRAKEN_DATA_DIR);
#   3. what the repository itself ships: `kraken profile` of a short command on the NVML
#      replay of tests/fixtures/nvml/h100.nvml (recorded from a real H100's nvidia-smi).
# KRAKEN_DEMO_INPUT=replay forces 3; KRAKEN_DEMO_OUT sets the output folder (default BUILD/demo).
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
data=${KRAKEN_DATA_DIR:-$root/../shared/data}
kraken="$build/src/cli/kraken"
replay="$build/src/collectors/nvml/libkraken_nvml_replay.so"
out=${KRAKEN_DEMO_OUT:-$build/demo}
mkdir -p "$out"
db="$out/demo.db"
rm -f "$db" "$db-wal" "$db-shm"

pick_input() {
  example=""
  [ "${KRAKEN_DEMO_INPUT:-}" = replay ] && return
  # The ResNet-50 training trace when there is one (scripts/gpu-validate.sh records it as
  # examples/<gpu>/resnet50-train.pt.trace.json.gz), else any recorded PyTorch trace.
  example=$(find "$root/examples" -name 'resnet50-train.pt.trace.json*' 2>/dev/null | sort | head -1)
  [ -n "$example" ] || example=$(find "$root/examples" -name '*.pt.trace.json*' 2>/dev/null | sort | head -1)
  if [ -n "$example" ]; then
    what="a recording in examples/: $example"
    # The folder's README.md (scripts/gpu_validate/ingest.py) starts "# <GPU>: recorded by ...".
    local gpu
    gpu=$(sed -n '1s/^# \(.*\): recorded by .*/\1/p' "$(dirname "$example")/README.md" 2>/dev/null || true)
    [ -z "$gpu" ] || what="$what (recorded on a real $gpu; the README.md beside it names the driver, versions and commands)"
    return
  fi
  example="$data/kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
  if [ -f "$example" ]; then
    what="a real public trace from the shared data: ResNet-50 training on a V100 (PyTorch tb_plugin sample)"
    return
  fi
  example=""
}

# Profiles `sleep 3` on the replayed H100: the capture's busy process (pid 11345, 99 % SM) is
# reported under the shell kraken starts, so the run shows an idle phase, then a busy one.
profile_on_replay() {
  [ -f "$replay" ] || { echo "kraken: error: $replay is missing (make build)" >&2; exit 2; }
  KRAKEN_NVML_LIBRARY="$replay" KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100.nvml" \
    KRAKEN_NVML_REPLAY_PID_MAP="11345:self/0" \
    "$kraken" profile --db "$db" --interval 100ms --samples 20 -- sh -c 'sleep 3' > "$out/profile.txt"
  example=$("$kraken" list --db "$db" --json | sed -n 's/.*"id": *\([0-9]*\).*/\1/p' | tail -1)
  [ -n "$example" ] || { echo "kraken: error: the replayed profile was not stored in $db" >&2; exit 2; }
  local why="no recording in examples/ and no shared data at $data"
  [ "${KRAKEN_DEMO_INPUT:-}" = replay ] && why="KRAKEN_DEMO_INPUT=replay"
  what="$why: \`kraken profile\` of a 3 s command on the NVML replay of the shipped H100 capture (tests/fixtures/nvml/h100.nvml), stored as profile $example"
}

pick_input
[ -n "$example" ] || profile_on_replay
echo "Demo input: $what"

"$kraken" analyze "$example" --db "$db" -o "$out/report.txt"
"$kraken" analyze "$example" --db "$db" --json -o "$out/report.json"
echo
cat "$out/report.txt"
"$kraken" report "$example" --db "$db" -o "$out/report.html" 2>/dev/null
[ -f "$example" ] && "$kraken" import "$example" --db "$db" >/dev/null
# A live node for the dashboard's cluster and live pages: the agent samples the replayed
# 8-GPU capture shipped in the repo (tests/fixtures/nvml/h100x8.nvml, derived from a real
# H100 nvidia-smi capture) for a few seconds through the NVML replay library.
if [ -f "$replay" ]; then
  KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100x8.nvml" "$kraken" agent --nvml-library "$replay" \
    --listen 127.0.0.1:0 --interval 100ms --db "$db" >"$out/agent.log" 2>&1 &
  agent=$!
  sleep 3
  kill -TERM "$agent"
  wait "$agent" || { echo "kraken: error: the demo's replayed agent failed (see $out/agent.log)" >&2; exit 2; }
  echo "Live node: 3 s of the replayed 8 x H100 capture sampled by \`kraken agent\` into $db"
fi
echo "Text:   $out/report.txt"
echo "JSON:   $out/report.json"
echo "Report: $out/report.html   (one self-contained HTML file: open it in a browser)"
echo "Dashboard: $kraken serve --db $db   then open http://127.0.0.1:7070/"
