#include "analysis/colocate/colocation_parameters.h"

namespace kraken {

double ContextSwitchSeconds(const ColocationParameters& params, const DeviceSpec* device) {
  if (device == nullptr || device->sm_count <= 0 || device->dram_bytes_per_s <= 0) return params.fallback_switch_s;
  return 2.0 * device->sm_count * params.context_bytes_per_sm / device->dram_bytes_per_s;
}

std::vector<ModelParameter> DescribeParameters(const ColocationParameters& p, const DeviceSpec* device) {
  std::vector<ModelParameter> rows = {
      {"timeslice", p.timeslice_s * 1e3, "ms",
       "assumption: default slice length unpublished; nvidia-smi compute-policy short/medium/long = 2/10/30 ms"},
      {"context_switch", ContextSwitchSeconds(p, device) * 1e6, "us",
       device != nullptr ? "2 x SMs x " + std::to_string(static_cast<int>(p.context_bytes_per_sm / 1024)) +
                               " KiB / DRAM bandwidth of " + device->id + " (assumed per-SM context)"
                         : "assumption: V100 figure (device unknown)"},
      {"dram_efficiency", p.dram_efficiency, "fraction of peak", "assumption: ~90 % of peak is reachable (STREAM-like)"},
      {"memory_bound_dram", p.memory_bound_dram, "fraction of peak",
       "Orion roofline threshold: memory-bound at >= 60 % DRAM throughput (used when DRAM is not measured)"},
      {"compute_bound_dram", p.compute_bound_dram, "fraction of peak", "assumption (used when DRAM is not measured)"},
      {"other_dram", p.other_dram, "fraction of peak", "assumption: latency-bound/small kernels (DRAM not measured)"},
      {"unknown_dram", p.unknown_dram, "fraction of peak",
       "assumption: neither DRAM activity nor kernel classes known (utilization samples only)"},
      {"pcie_bandwidth", p.pcie_bytes_per_s / 1e9, "GB/s", "assumption: PCIe Gen4 x16 achieved, both directions"},
      {"p99_z", p.p99_z, "", "standard normal 99th percentile"},
      {"unmeasured_busy", p.unmeasured_busy, "fraction", "assumption: kernel lists run back to back"},
      {"periodic_min_autocorr", p.periodic_min_autocorr, "", "assumption: threshold for a repeating busy profile"},
      {"period_match_tolerance", p.period_match_tolerance, "ratio", "assumption: periods that lock under round-robin"},
  };
  return rows;
}

}  // namespace kraken
