#include "analysis/gpm_bound.h"

#include <cstdio>

#include "analysis/distribution.h"

namespace kraken {

std::optional<GpmBound> BoundFromGpmActivity(const std::vector<double>& sm_or_tensor,
                                             const std::vector<double>& dram) {
  if (sm_or_tensor.empty() || dram.empty()) return std::nullopt;
  double sm_p50 = Summarize(sm_or_tensor).p50, dram_p50 = Summarize(dram).p50;
  char figures[128];
  std::snprintf(figures, sizeof(figures), "GPM median SM/tensor active %.0f%%, DRAM active %.0f%%", sm_p50 * 100,
                dram_p50 * 100);
  GpmBound out;
  if (dram_p50 >= kGpmBusyActivity && dram_p50 >= sm_p50) {
    out.bound = "memory";
  } else if (sm_p50 >= kGpmBusyActivity) {
    out.bound = "compute";
  } else {
    out.bound = "neither";
  }
  out.reason = figures;
  return out;
}

}  // namespace kraken
