#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for FUZZ_SECONDS in all (the importers get a third,
# the other parsers share the rest, at least 5 s each), seeded with small real files from
# the shared data (decompressed into the build folder, never into the repo) and the
# hand-written seeds of fuzz/seeds. FUZZ_JOBS targets (default: one a core) run at once,
# each on one core, so the wall time is about FUZZ_SECONDS / FUZZ_JOBS; each prints its log
# whole when it ends. After the first one that finds a crash, leak or timeout (its
# reproducer is left in the build folder) no other starts, and the run fails.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
# A fixed seed (FUZZ_SEED, as CI sets it) makes a run repeatable; 0 = libFuzzer picks one.
seed=${FUZZ_SEED:-0}
root=$(cd "$(dirname "$0")/.." && pwd)
data=${KRAKEN_DATA_DIR:-$root/../shared/data}
export KRAKEN_DATA_DIR=$data
importer_seconds=$(( seconds / 3 > 10 ? seconds / 3 : 10 ))
other_seconds=$(( (seconds - importer_seconds) / 10 > 5 ? (seconds - importer_seconds) / 10 : 5 ))

jobs_max=${FUZZ_JOBS:-$(nproc)}
failed=""
output_lock="$(cd "$build" && pwd)/fuzz-output.lock"

# await_slot LIMIT: waits until fewer than LIMIT fuzzers run; notes a failed one.
await_slot() {
  while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do
    wait -n || failed=yes
  done
}

# run_fuzzer NAME SECONDS CORPUS [MAX_LEN]: starts it in the background once a slot is free
# (none after a failure); its output goes to build/fuzz-NAME.log, printed whole at its end.
run_fuzzer() {
  await_slot "$jobs_max"
  [ -z "$failed" ] || return 0
  echo "fuzzing $1 for ${2}s with $(ls "$3" | wc -l) seeds"
  (
    rc=0
    cd "$build" && "fuzz/kraken_$1" -max_total_time="$2" -max_len="${4:-65536}" -timeout=10 -rss_limit_mb=2048 \
      -seed="$seed" -print_final_stats=1 -artifact_prefix="$1-" "$3" > "fuzz-$1.log" 2>&1 || rc=$?
    # One writer at a time, so that two logs never interleave.
    flock "$output_lock" sh -c 'echo "---- $1 (exit $2)"; cat "$3"' _ "$1" "$rc" "fuzz-$1.log"
    exit "$rc"
  ) &
}

# fresh_corpus NAME: an empty corpus folder (absolute path)
fresh_corpus() {
  rm -rf "$build/fuzz-corpus-$1"
  mkdir -p "$build/fuzz-corpus-$1"
  echo "$(cd "$build/fuzz-corpus-$1" && pwd)"
}

corpus=$(fresh_corpus importers)
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
cp "$root"/fuzz/seeds/*.json "$corpus/"
run_fuzzer importers_fuzzer "$importer_seconds" "$corpus"

# The NVML capture parser (what the replay library reads), seeded with the fixtures.
corpus=$(fresh_corpus nvml)
cp "$root"/tests/fixtures/nvml/*.nvml "$corpus/"
run_fuzzer nvml_capture_fuzzer "$other_seconds" "$corpus"

# nvidia-smi captures through record-nvml --from-nvidia-smi's converter, seeded with the real
# captures less their help sections (text the converter never reads); a capture needs a -q
# report and dmon rows to convert, more than 64 KiB.
corpus=$(fresh_corpus smi_capture)
for f in "$data"/nvidia-smi/capture__*.txt; do
  # A banner is a rule, "# phase :: title", "# $ command", a rule.
  awk 'state == 0 && /^#####/ { held = $0; state = 1; next }
       state == 1 { skip = ($0 ~ /^# .*( help|\(-h\))/); if (!skip) print held; state = 2 }
       state == 2 && /^#####/ { state = 0; if (!skip) print; next }
       !skip' "$f" > "$corpus/$(basename "$f")"
done
run_fuzzer smi_capture_fuzzer "$other_seconds" "$corpus" 131072

# The openb CSVs of the cluster trace: the first byte picks the list (odd: nodes).
corpus=$(fresh_corpus openb)
for f in "$data"/alibaba-gpu-v2023/openb_*.csv; do
  case "$(basename "$f")" in openb_node_*) prefix='\x01' ;; *) prefix='\x00' ;; esac
  { printf "$prefix"; head -c 32768 "$f"; } > "$corpus/$(basename "$f")"
done
run_fuzzer openb_csv_fuzzer "$other_seconds" "$corpus"

# The config file: the hand-written seeds and deploy/'s YAML files.
corpus=$(fresh_corpus config)
cp "$root"/fuzz/seeds/config/* "$corpus/"
find "$root/deploy" -name '*.yaml' -size -64k -exec cp {} "$corpus/" \;
run_fuzzer config_fuzzer "$other_seconds" "$corpus"

# Request bodies of serve's routes, the extender's ExtenderArgs, Prometheus answers, the
# Kubernetes objects kraken reads (first byte: which reader), `mig apply`'s mig-parted file.
for name in serve_api extender_args promql k8s_objects mig_parted; do
  corpus=$(fresh_corpus "$name")
  cp "$root/fuzz/seeds/$name"/* "$corpus/"
  run_fuzzer "${name}_fuzzer" "$other_seconds" "$corpus"
done

# Users' small files and flag values (first byte: which); the price catalog's seed is the
# built-in one (data/prices), behind its selector byte.
corpus=$(fresh_corpus user_files)
cp "$root"/fuzz/seeds/user_files/* "$corpus/"
{ printf '\x02'; cat "$root/data/prices/gpu_instances.csv"; } > "$corpus/price_catalog"
run_fuzzer user_files_fuzzer "$other_seconds" "$corpus"

# The in-place ProfilerStep removal of the Python WorkloadProfiler's torch traces: the first
# byte picks the step number; seeds are the hand-written ones and small real Kineto traces.
corpus=$(fresh_corpus profiler_step)
cp "$root"/fuzz/seeds/profiler_step/* "$corpus/"
i=0
while IFS= read -r f; do
  i=$((i + 1))
  { printf '\x01'; head -c 32768 "$f"; } > "$corpus/kineto-$i"
done < <(find "$data/kineto" -type f -name '*.json' -size -64k | sort | head -20)
run_fuzzer profiler_step_fuzzer "$other_seconds" "$corpus"

await_slot 1
if [ -n "$failed" ]; then
  echo "fuzz: a fuzzer failed (its log above; its input is left in $build)" >&2
  exit 1
fi
