#!/usr/bin/env bash
# profile_run.sh KRAKEN NCU LAUNCHES OUTBASE -- CMD ARGS...
# A profiled experiment (docs/k8s-controller.md, "Profiled experiments") without a cluster: the
# argv the controller's profile Job runs for CMD, as kraken itself builds it (`kraken
# annotate --print-ncu-command`, the Job builder's NcuCommandPrefix), run here; its output
# (stdout and stderr together, as a pod's log) imported as the controller imports it, with
# the ncu-csv importer (`kraken analyze LOG --json`). Writes OUTBASE.argv.txt (the
# controller's argv, one word a line), OUTBASE.log (the "pod log"), OUTBASE.analysis.json,
# OUTBASE.analyze-error.txt and OUTBASE.status.json ({"ncu_rc", "analyze_rc"}).
#
# Two differences from the Job, both about where it runs, none in ncu's arguments: the
# argv's "ncu" is NCU (the path the validation found; the Job's image has ncu on PATH), and
# `--clock-control none` comes first, since scripts/gpu-validate.sh never changes the GPU's
# clocks (ncu's default locks them to base while it profiles).
set -uo pipefail
kraken=$1 ncu=$2 launches=$3 base=$4
shift 4
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "profile_run: no command to profile" >&2; exit 2; }

"$kraken" annotate --print-ncu-command --ncu-launch-count "$launches" -- "$@" > "$base.argv.txt" ||
  { echo "profile_run: kraken annotate --print-ncu-command failed"; exit 1; }
mapfile -t argv < "$base.argv.txt"
[ "${argv[0]:-}" = ncu ] || { echo "profile_run: the controller's argv does not start with ncu: ${argv[*]}"; exit 1; }
echo "profile_run: the controller's argv: ${argv[*]}"
"$ncu" --clock-control none "${argv[@]:1}" > "$base.log" 2>&1
ncu_rc=$?
echo "profile_run: ncu exited $ncu_rc, $(wc -l < "$base.log") lines of log"
"$kraken" analyze "$base.log" --json --top 1000 > "$base.analysis.json" 2> "$base.analyze-error.txt"
analyze_rc=$?
printf '{"ncu_rc": %d, "analyze_rc": %d}\n' "$ncu_rc" "$analyze_rc" > "$base.status.json"
if [ $analyze_rc -ne 0 ]; then
  echo "profile_run: kraken analyze exited $analyze_rc: $(head -n 1 "$base.analyze-error.txt")"
  exit 1
fi
echo "profile_run: imported $base.log"
