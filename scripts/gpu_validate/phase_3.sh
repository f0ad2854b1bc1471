# shellcheck shell=bash
# scripts/gpu-validate.sh, phase 3: overhead of the agent, of NVML calls and of the tracer.
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

phase_3_overhead() {
  if [ "$mode" = gpu ]; then
    run_if p3.agent-overhead 40 "torch kraken" "$py" "$gv/windows.py" agent-overhead --pause "$pause_s" --workload gemm --kraken "$kraken" \
      --out "$ov/agent" --seconds "$overhead_s" --deadline $((phase_end - 20))
  else
    run_if p3.agent-overhead 40 kraken "$py" "$gv/windows.py" agent-overhead --pause "$pause_s" --workload gemm --stand-in \
      --kraken "$kraken" --out "$ov/agent" --seconds "$overhead_s" --deadline "$phase_end"
  fi
  step p3.nvml-latency 20 "$py" "$gv/nvml_latency.py" --out "$ov/nvml-latency.json" \
    ${KRAKEN_NVML_LIBRARY:+--library "$KRAKEN_NVML_LIBRARY"}
  tracer_overhead gemm p3
}
