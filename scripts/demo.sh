#!/usr/bin/env bash
# `make demo`: analyses an example, writes its HTML report and prints where it is and how
# to open the dashboard on it.
# The examples in examples/ are recorded on real GPUs with scripts/record-examples.sh;
# until one is recorded, the demo uses a real public trace from the shared data.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
data=${KRAKEN_DATA_DIR:-$root/../shared/data}
kraken="$build/src/cli/kraken"

example=$(find "$root/examples" -name '*.pt.trace.json*' 2>/dev/null | sort | head -1)
if [ -z "$example" ]; then
  example="$data/kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
  if [ ! -f "$example" ]; then
    echo "kraken: error: no recorded example in examples/ and no shared data at $data (set KRAKEN_DATA_DIR)" >&2
    exit 2
  fi
  echo "No example recorded in examples/ yet (it needs a GPU, see examples/README.md);"
  echo "analysing a real public trace instead: ResNet-50 training on a V100 (PyTorch tb_plugin sample)."
fi

out="$build/demo"
mkdir -p "$out"
"$kraken" analyze "$example" -o "$out/report.txt"
"$kraken" analyze "$example" --json -o "$out/report.json"
echo
cat "$out/report.txt"
"$kraken" report "$example" -o "$out/report.html" 2>/dev/null
# A store holding the demo input, for the dashboard.
rm -f "$out/demo.db" "$out/demo.db-wal" "$out/demo.db-shm"
"$kraken" import "$example" --db "$out/demo.db" >/dev/null
# A live node for the dashboard's cluster and live pages: the agent samples the replayed
# 8-GPU capture shipped in the repo (tests/fixtures/nvml/h100x8.nvml, derived from a real
# H100 nvidia-smi capture) for a few seconds through the NVML replay library.
replay="$build/src/collectors/nvml/libkraken_nvml_replay.so"
if [ -f "$replay" ]; then
  KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100x8.nvml" "$kraken" agent --nvml-library "$replay" \
    --listen 127.0.0.1:0 --interval 100ms --db "$out/demo.db" >"$out/agent.log" 2>&1 &
  agent=$!
  sleep 3
  kill -TERM "$agent"
  wait "$agent" || { echo "kraken: error: the demo's replayed agent failed (see $out/agent.log)" >&2; exit 2; }
  echo "Live node: 3 s of the replayed 8 x H100 capture sampled by \`kraken agent\` into $out/demo.db"
fi
echo "Text:   $out/report.txt"
echo "JSON:   $out/report.json"
echo "Report: $out/report.html   (one self-contained HTML file: open it in a browser)"
echo "Dashboard: $kraken serve --db $out/demo.db   then open http://127.0.0.1:7070/"
