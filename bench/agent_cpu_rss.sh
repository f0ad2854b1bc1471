#!/usr/bin/env bash
# The agent's cost at 10 Hz on the replayed 8 x H100 node: CPU % of one core (utime +
# stime from /proc over the run) and peak RSS (VmHWM). Targets: < 0.5 % and < 30 MB.
# Usage: bench/agent_cpu_rss.sh [build-dir] [seconds]
set -euo pipefail
build=${1:-build}
seconds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
kraken="$build/src/cli/kraken"
replay=$(find "$build/src/collectors" -name 'libkraken_nvml_replay.so' | head -1)
[ -x "$kraken" ] && [ -n "$replay" ] || { echo "kraken: error: build kraken and kraken_nvml_replay first" >&2; exit 2; }
tmp=$(mktemp -d)
KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100x8.nvml" "$kraken" agent --listen 127.0.0.1:0 --interval 100ms \
  --db "$tmp/kraken.db" --nvml-library "$replay" 2> "$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
sleep 2  # start-up (enumeration, store creation) is not the steady state
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
c0=$(cpu); t0=$(date +%s.%N)
sleep "$seconds"
c1=$(cpu); t1=$(date +%s.%N)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$ticks" -v hwm="$hwm" -v rss="$rss" 'BEGIN {
  printf "kraken agent, 8 replayed GPUs at 10 Hz with the store, %.1f s: CPU %.2f %% of one core (target < 0.5 %%), RSS %.1f MB, peak %.1f MB (target < 30 MB)\n",
    t1 - t0, 100 * (c1 - c0) / hz / (t1 - t0), rss / 1024, hwm / 1024 }'
kill -TERM $pid
wait $pid && echo "stopped with SIGTERM: exit 0"
