# shellcheck shell=bash
# scripts/gpu-validate.sh, environment: what the node has (OS, GPU, driver, CUDA tools,
# Python and torch, whether the bundle's kraken runs); the phases' `need` reads its answers.
# Sourced by scripts/gpu-validate.sh before the run starts (functions only: a missing or
# broken file stops the script at once, not half-way through the one GPU run); they use
# its variables and helpers (step, skip, run_if, need, say, phase_end, ...) when called.
# shellcheck disable=SC2154,SC2034  # variables set and read by scripts/gpu-validate.sh

env_cmd() {  # env_cmd NAME CMD...: a step whose output also goes into env/NAME.txt and the summary
  local name=$1; shift
  step "env.$name" 20 "$@"
  grep -v '^\$ ' "$res/logs/env.$name.log" > "$res/env/$name.txt"
  sed -n '1,12p' "$res/env/$name.txt" | sed 's/^/    /' | tee -a "$summary"
}
phase_environment() {
  env_cmd ldd-version ldd --version
  env_cmd uname uname -a
  env_cmd os-release cat /etc/os-release
  env_cmd cpu sh -c 'nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2'
  if [ "$mode" = gpu ]; then
    env_cmd nvidia-smi nvidia-smi
    env_cmd gpu-query nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap,pci.bus_id,clocks.max.sm,power.limit --format=csv
  else
    skip env.nvidia-smi "no GPU (replay mode)"
  fi
  nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1 || true)
  if [ -n "$nvcc" ]; then env_cmd nvcc "$nvcc" --version; else skip env.nvcc "nvcc not found"; fi
  if [ -n "$ncu" ]; then env_cmd ncu "$ncu" --version; else skip env.ncu "ncu not found (PATH, /opt/nvidia/nsight-compute/*/)"; fi
  env_cmd python "$py" "$gv/versions.py"
  have_torch=0
  grep -q '"cuda_available": true' "$res/env/python.txt" && have_torch=1
  if env_cmd kraken "$kraken" --version; then
    kraken_ok=1
    env_cmd kraken-gpus "$kraken" gpus --json
  else
    kraken_ok=0
    env_cmd kraken-ldd ldd "$kraken"
  fi
  mps_control=$(command -v nvidia-cuda-mps-control || true)
  say "    torch with CUDA: $([ $have_torch = 1 ] && echo yes || echo no); kraken runs: $([ $kraken_ok = 1 ] && echo yes || echo no); CUPTI tracer: $([ -f "$cupti_lib" ] && echo "$cupti_lib" || echo absent); MPS control: ${mps_control:-absent}"
}
