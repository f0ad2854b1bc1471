#!/usr/bin/env bash
# Scrapes per second of the agent's /metrics on loopback with wrk (8 replayed GPUs,
# sampling at 10 Hz meanwhile). Target: 1000 scrapes/s.
# Usage: bench/scrape_wrk.sh [build-dir] [seconds]
set -euo pipefail
build=${1:-build}
seconds=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
kraken="$build/src/cli/kraken"
replay=$(find "$build/src/collectors" -name 'libkraken_nvml_replay.so' | head -1)
command -v wrk > /dev/null || { echo "kraken: error: wrk is not installed" >&2; exit 2; }
[ -x "$kraken" ] && [ -n "$replay" ] || { echo "kraken: error: build kraken and kraken_nvml_replay first" >&2; exit 2; }
tmp=$(mktemp -d)
KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100x8.nvml" "$kraken" agent --listen 127.0.0.1:0 --interval 100ms \
  --no-store --nvml-library "$replay" 2> "$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do grep -q "serving http" "$tmp/log" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*/metrics' "$tmp/log" | head -1)
[ -n "$url" ] || { cat "$tmp/log" >&2; exit 1; }
echo "# wrk -t2 -c8 -d${seconds}s $url"
wrk -t2 -c8 -d"${seconds}s" "$url" | grep -E "Requests/sec|Latency|requests in"
