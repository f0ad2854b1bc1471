#!/usr/bin/env bash
# Full-analysis throughput and peak memory on the five largest Kineto traces of the
# shared data: once on the plain JSON (decompressed to a temp dir first) and once on
# the .gz as shipped (decompression included). One process per measurement.
set -euo pipefail
build=${1:-build}
data=${KRAKEN_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}
bench="$build/bench/kraken_trace_bench"
[ -x "$bench" ] || { echo "kraken: error: $bench not built" >&2; exit 2; }
[ -d "$data/kineto" ] || { echo "kraken: error: no traces under $data/kineto (set KRAKEN_DATA_DIR)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The five largest traces by uncompressed size.
mapfile -t largest < <(for f in $(find "$data/kineto" -name '*.json.gz'); do
  echo "$(gzip -l "$f" | awk 'NR==2 {print $2}') $f"; done | sort -rn | head -5 | awk '{print $2}')

echo "# plain JSON (one core, import + all analyses)"
for f in "${largest[@]}"; do
  plain="$tmp/$(basename "${f%.gz}")"
  gzip -dc "$f" > "$plain"
  "$bench" "$plain" 5
  rm -f "$plain"
done
echo "# gzip as shipped (decompression included)"
for f in "${largest[@]}"; do "$bench" "$f" 5; done
echo "# kraken temporal: every Helios and GenAI series (import, periodicity, rolling-origin MASE)"
"$build/bench/kraken_temporal_bench" "$data"
echo "# NVML collector: one sampling pass over 8 replayed GPUs (libkraken_nvml_replay.so)"
if [ -x "$build/bench/kraken_nvml_sample_bench" ]; then "$build/bench/kraken_nvml_sample_bench"; fi

# `kraken pack`: seconds per experiment (one policy, one seed, 130%) and the whole
# 7-policy x 10-seed sweep on 2 threads, on the openb trace.
pack="$build/bench/kraken_pack_bench"
openb="$data/alibaba-gpu-v2023"
if [ -x "$pack" ] && [ -d "$openb" ]; then
  echo "# kraken pack (openb default trace)"
  "$pack" "$openb/openb_node_list_gpu_node.csv" "$openb/openb_pod_list_default.csv" 2 3
fi
echo "# profile store: 24 h x 8 GPUs x 10 Hz ingest and one-series queries (about 2 GB of temp disk)"
"$build/bench/kraken_store_bench" --hours 24 --row-hours 1
echo "# kraken analyze on many ranks: one thread vs every core (DLRM 8 ranks; the ten largest traces together)"
"$(dirname "$0")/../bench/multirank_speed.sh" "$build" 3
echo "# kraken report: whole command on the largest Kineto trace, and the HTML size"
"$(dirname "$0")/../bench/report_speed.sh" "$build"
echo "# kraken agent: /metrics render (8 GPUs x 50 series), agent CPU/RSS at 10 Hz, wrk scrapes/s"
"$build/bench/kraken_exposition_bench"
"$build/bench/kraken_window_analysis_bench"
"$(dirname "$0")/../bench/agent_cpu_rss.sh" "$build" 20
"$(dirname "$0")/../bench/scrape_wrk.sh" "$build" 10
echo "# kraken serve: wrk on loopback and a ~87 MB upload (bench/serve_wrk.sh)"
"$(dirname "$0")/../bench/serve_wrk.sh" "$build"
# The Python package (docs/python.md): import time, and what `with WorkloadProfiler(...)`
# adds to a loop of 1 ms steps. NVML is the replay library unless KRAKEN_NVML_LIBRARY names
# one (on a GPU machine: export KRAKEN_NVML_LIBRARY=libnvidia-ml.so.1).
echo "# Python: import kraken, and with WorkloadProfiler around 1 ms steps"
root="$(cd "$(dirname "$0")/.." && pwd)"
PYTHONPATH="$build/python" /usr/bin/python3 "$root/bench/python_import_time.py" 20
if [ -z "${KRAKEN_NVML_LIBRARY:-}" ]; then
  PYTHONPATH="$build/python" KRAKEN_NVML_LIBRARY="$build/src/collectors/nvml/libkraken_nvml_replay.so" \
    KRAKEN_NVML_REPLAY="$root/tests/fixtures/nvml/h100.nvml" /usr/bin/python3 "$root/bench/python_overhead.py" 3000 7
else
  PYTHONPATH="$build/python" /usr/bin/python3 "$root/bench/python_overhead.py" 3000 7
fi

# The scheduler extender on 5,000 and 20,000 nodes (docs/limits.md "HTTP servers: security").
echo "# kraken extender: filter and prioritize on large clusters"
/usr/bin/python3 "$root/bench/extender_bench.py" "$build/src/cli/kraken" 5000 20000
