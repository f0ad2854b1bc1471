#!/usr/bin/env bash
# Records kraken's examples on a machine with an NVIDIA GPU (see examples/README.md).
set -euo pipefail
out=${1:?usage: record-examples.sh OUT_DIR}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
command -v nvidia-smi >/dev/null || { echo "kraken: error: nvidia-smi not found: this needs an NVIDIA GPU" >&2; exit 2; }

fields=timestamp,index,name,uuid,pci.bus_id,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,clocks.sm,clocks.mem,temperature.gpu
nvidia-smi --query-gpu=$fields --format=csv -lms 100 > "$out/nvidia-smi-query.csv" &
query_pid=$!
nvidia-smi dmon -s pucmt -o DT > "$out/nvidia-smi-dmon.txt" &
dmon_pid=$!
python3 "$here/examples/record_workload.py" "$out"
kill "$query_pid" "$dmon_pid" || true

if command -v ncu >/dev/null; then
  ncu --csv --page details -c 5 python3 "$here/examples/record_workload.py" "$out/ncu-run" > "$out/ncu-details.csv"
  ncu --csv --page raw --print-units base -c 5 python3 "$here/examples/record_workload.py" "$out/ncu-run" \
    > "$out/ncu-raw.csv"
  rm -rf "$out/ncu-run"
fi
{
  echo "# Recorded $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  command -v ncu >/dev/null && ncu --version | tail -1
} > "$out/RECORDED.md"
ls -la "$out"
