#!/usr/bin/env bash
# `kraken report` speed: wall time of the whole command (import, analyze, disagg, HTML) on
# the largest Kineto trace of the shared data (by uncompressed size), best and median of
# 5 runs, and the size of the HTML it writes. Target: < 2 s.
# Usage: bench/report_speed.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
data=${KRAKEN_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}
kraken="$build/src/cli/kraken"
[ -x "$kraken" ] || { echo "kraken: error: $kraken not built" >&2; exit 2; }
[ -d "$data/kineto" ] || { echo "kraken: error: no traces under $data/kineto (set KRAKEN_DATA_DIR)" >&2; exit 2; }

largest=$(for f in $(find "$data/kineto" -name '*.json.gz'); do
  echo "$(gzip -l "$f" | awk 'NR==2 {print $2}') $f"; done | sort -rn | head -1 | awk '{print $2}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
times=()
for _ in 1 2 3 4 5; do
  start=$(date +%s.%N)
  "$kraken" report "$largest" -o "$tmp/report.html" 2>/dev/null
  end=$(date +%s.%N)
  times+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
best=$(echo "$sorted" | head -1)
median=$(echo "$sorted" | sed -n 3p)
size=$(stat -c %s "$tmp/report.html")
echo "kraken report $(basename "$largest") ($(gzip -l "$largest" | awk 'NR==2 {print $2}') bytes of JSON):"
awk -v b="$best" -v m="$median" -v s="$size" \
  'BEGIN {printf "  best %.3f s, median %.3f s (target < 2 s); HTML %d bytes (%.2f MiB)\n", b, m, s, s / 1048576}'
