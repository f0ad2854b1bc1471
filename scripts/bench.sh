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
echo "# profile store: 24 h x 8 GPUs x 10 Hz ingest and one-series queries (about 2 GB of temp disk)"
"$build/bench/kraken_store_bench" --hours 24 --row-hours 1
