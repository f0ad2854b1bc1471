#!/usr/bin/env bash
# `kraken analyze` on many ranks at once: wall time with one thread (KRAKEN_THREADS=1) and
# with every core, on the 8-rank DLRM set (one .tar.gz) and on the ten largest shared Kineto
# traces analysed together; then the ratio. Best of N runs each; the load average is printed
# because the machine may be shared. Usage: bench/multirank_speed.sh [BUILD] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-3}
data=${KRAKEN_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}
kraken="$build/src/cli/kraken"
[ -x "$kraken" ] || kraken="$build/kraken"
[ -x "$kraken" ] || { echo "kraken: error: kraken binary not built under $build" >&2; exit 2; }
[ -d "$data/kineto" ] || { echo "kraken: error: no traces under $data/kineto (set KRAKEN_DATA_DIR)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Best wall seconds of `kraken analyze "$@"`, with that run's CPU seconds (user + system,
# all threads) and peak RSS (KiB). On a loaded machine the wall time includes waiting for
# a core; the CPU time shows what running in parallel costs in extra work.
best_of() {
  local threads=$1; shift
  local best="" cpu="" rss="" wall user sys mem
  for _ in $(seq "$runs"); do
    KRAKEN_THREADS=$threads /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$kraken" analyze --json -o /dev/null "$@" \
      >/dev/null 2>&1
    read -r wall user sys mem < <(tail -1 "$tmp/time")
    if [ -z "$best" ] || awk "BEGIN{exit !($wall < $best)}"; then
      best=$wall; cpu=$(awk "BEGIN{print $user + $sys}"); rss=$mem
    fi
  done
  echo "$best $cpu $rss"
}

measure() {
  local label=$1; shift
  local cores
  cores=$(nproc)
  read -r one one_cpu one_rss < <(best_of 1 "$@")
  read -r all all_cpu all_rss < <(best_of "$cores" "$@")
  awk -v l="$label" -v a="$one" -v b="$all" -v c="$cores" -v ca="$one_cpu" -v cb="$all_cpu" -v r1="$one_rss" -v r2="$all_rss" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
    'BEGIN { printf "{\"set\": \"%s\", \"one_thread_s\": %.3f, \"threads\": %d, \"all_threads_s\": %.3f, \"speedup\": %.2f, \"cpu_s_1\": %.2f, \"cpu_s_all\": %.2f, \"peak_rss_mb_1\": %.1f, \"peak_rss_mb_all\": %.1f, \"loadavg\": \"%s\"}\n", l, a, c, b, (b > 0 ? a / b : 0), ca, cb, r1 / 1024, r2 / 1024, load }'
}

measure "dlrm-8-ranks" "$data/kineto/param/dlrm_kineto.tar.gz"
# The ten largest by uncompressed size, as scripts/bench.sh picks its five.
mapfile -t largest < <(for f in $(find "$data/kineto" -name '*.json.gz'); do
  echo "$(gzip -l "$f" | awk 'NR==2 {print $2}') $f"; done | sort -rn | head -10 | awk '{print $2}')
measure "ten-largest" "${largest[@]}"
