#include "analysis/gpm_bound.h"

#include <cmath>
#include <cstdio>

#include "analysis/distribution.h"

namespace kraken {

std::optional<GpmBound> BoundFromGpmActivity(const std::vector<double>& sm_or_tensor,
                                             const std::vector<double>& dram) {
  // A pass whose GPM metric came back NaN (seen on an H100: DRAM active of a process that
  // ran 0.2 s, its first GPM interval without a valid sample) says nothing: it is dropped
  // with its pair, rather than printed as "-nan%" and compared as if it were a number.
  std::vector<double> sm_kept, dram_kept;
  for (size_t i = 0; i < sm_or_tensor.size() && i < dram.size(); ++i) {
    if (!std::isfinite(sm_or_tensor[i]) || !std::isfinite(dram[i])) continue;
    sm_kept.push_back(sm_or_tensor[i]);
    dram_kept.push_back(dram[i]);
  }
  if (sm_kept.empty()) return std::nullopt;
  double sm_p50 = Summarize(sm_kept).p50, dram_p50 = Summarize(dram_kept).p50;
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
