# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 2: agreement of the CUPTI tracer with torch.profiler, and
# of the ncu classes with the name classes (kernel_mix).
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

phase_2_agreement() {
  for w in resnet50-train bert-infer; do
    traced_profile "$w" 20 p2
    trace=$(largest "$ag/$w-cupti"/*.json)
    if [ -f "$ex/$w.pt.trace.json.gz" ] && [ -n "$trace" ]; then
      step "p2.$w-compare" 60 "$py" "$gv/compare_traces.py" "$ex/$w.pt.trace.json.gz" "$trace" --out "$ag/$w.compare.json"
    else
      skip "p2.$w-compare" "needs both traces (torch.profiler: phase 1, CUPTI: above)"
    fi
  done
  classes "$ex/ncu-kernel-mix.csv" "$(largest "$ex/kernel-mix-traces"/*.json)" kernel-mix p2
}
