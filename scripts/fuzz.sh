#!/usr/bin/env bash
# Runs the importer fuzzer for N seconds, seeded with small real files of every format
# from the shared data (decompressed into the build folder, never into the repo).
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
# A fixed seed (FUZZ_SEED, as CI sets it) makes a run repeatable; 0 = libFuzzer picks one.
seed=${FUZZ_SEED:-0}
data=${KRAKEN_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}
corpus="$build/fuzz-corpus"
mkdir -p "$corpus"
i=0
while IFS= read -r f; do
  i=$((i + 1))
  case "$f" in
    # head closes the pipe after 64 KiB: gzip's SIGPIPE is expected, not an error.
    *.gz) { gzip -dc "$f" 2>/dev/null || true; } | head -c 65536 > "$corpus/seed-$i" ;;
    *) head -c 65536 "$f" > "$corpus/seed-$i" ;;
  esac
done < <(find "$data/kineto" "$data/ncu" "$data/nvidia-smi" "$data/dcgm" "$data/orion" -type f -size -400k \
           \( -name '*.json' -o -name '*.json.gz' -o -name '*.csv' -o -name '*.txt' -o -name '*.prom' \))
# kraken's own export has no file in the shared data: the repo keeps a small synthetic one
# with every section (fuzz/seeds), so that the kraken-json importer is reached too.
for f in "$(cd "$(dirname "$0")/.." && pwd)"/fuzz/seeds/*; do
  i=$((i + 1))
  cp "$f" "$corpus/seed-$i"
done
echo "fuzzing the importers for ${seconds}s with $i seeds"
"$build/fuzz/kraken_importers_fuzzer" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -seed="$seed" -print_final_stats=1 "$corpus"

# The NVML capture parser (what the replay library reads), seeded with the fixtures.
nvml_corpus="$build/fuzz-corpus-nvml"
mkdir -p "$nvml_corpus"
cp "$(cd "$(dirname "$0")/.." && pwd)"/tests/fixtures/nvml/*.nvml "$nvml_corpus/"
nvml_seconds=$(( seconds / 4 > 10 ? seconds / 4 : 10 ))
echo "fuzzing the NVML capture parser for ${nvml_seconds}s"
"$build/fuzz/kraken_nvml_capture_fuzzer" -max_total_time="$nvml_seconds" -max_len=65536 -timeout=10 \
  -seed="$seed" -print_final_stats=1 "$nvml_corpus"
