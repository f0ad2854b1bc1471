#!/usr/bin/env bash
# `kraken serve` on loopback: requests per second and p99 latency of the two hottest
# legacy endpoints under wrk (2 threads, 32 connections, 10 s each), then the upload of a
# ~87 MB Kineto trace (HTA's MTIA trace, decompressed) against `kraken import` of the
# same file, both into a fresh store. Targets (docs/api.md): >= 20k req/s, p99 < 5 ms.
# Usage: bench/serve_wrk.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
kraken="$build/src/cli/kraken"
data=${KRAKEN_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}
trace="$data/kineto/hta/mtia_trace_single_rank/mtia_rank_0.json.gz"
[ -x "$kraken" ] || { echo "kraken: error: $kraken not built" >&2; exit 2; }
command -v wrk > /dev/null || { echo "kraken: error: wrk is missing (scripts/install-deps.sh)" >&2; exit 2; }
command -v curl > /dev/null || { echo "kraken: error: curl is missing" >&2; exit 2; }
[ -f "$trace" ] || { echo "kraken: error: $trace missing (set KRAKEN_DATA_DIR)" >&2; exit 2; }

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2> /dev/null || true; wait "$server_pid" 2> /dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

"$kraken" serve --host 127.0.0.1 --port 0 --db "$tmp/serve.db" --max-body 1GiB 2> "$tmp/serve.log" &
server_pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$tmp/serve.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "kraken: error: the server did not start:" >&2; cat "$tmp/serve.log" >&2; exit 1; }
url="http://127.0.0.1:$port"

run_wrk() {
  local name=$1 path=$2
  curl -sf "$url$path" > /dev/null  # warm the caches
  wrk -t2 -c32 -d10s --latency "$url$path" > "$tmp/wrk.txt"
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$tmp/wrk.txt")
  p99=$(awk '$1 == "99%" {print $2}' "$tmp/wrk.txt")
  printf '%-28s %10s req/s   p99 %s\n' "$name" "$rps" "$p99"
}
echo "# kraken serve, wrk -t2 -c32 -d10s on loopback ($(nproc) cores)"
run_wrk "GET /colocation" "/colocation?a=resnet50&b=bert"
run_wrk "GET /profile/{id}" "/profile/resnet50"

echo "# upload of $(basename "$trace") decompressed vs kraken import"
gzip -dc "$trace" > "$tmp/trace.json"
bytes=$(stat -c %s "$tmp/trace.json")
start=$(date +%s.%N)
curl -sf -X POST -H 'Content-Type: application/json' --data-binary "@$tmp/trace.json" \
  "$url/api/v1/profiles?name=trace.json" > "$tmp/upload.json"
upload_s=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
"$kraken" import --db "$tmp/import.db" "$tmp/trace.json" > /dev/null 2>&1
import_s=$(echo "$(date +%s.%N) - $start" | bc)
printf 'upload (stream + import + store) %6.2f s  %6.1f MB/s  %s\n' "$upload_s" \
  "$(echo "$bytes / 1000000 / $upload_s" | bc -l)" "$(cat "$tmp/upload.json")"
printf 'kraken import --db              %6.2f s  %6.1f MB/s\n' "$import_s" \
  "$(echo "$bytes / 1000000 / $import_s" | bc -l)"
