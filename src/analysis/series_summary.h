// Summaries of sampled metrics (nvidia-smi, dcgm-exporter, NVML): per series, how many
// samples, their mean, median, p95 and peak. For sampler captures this is the
// characterization: how busy each GPU was and how much memory it held.
#pragma once

#include <string>
#include <vector>

#include "analysis/distribution.h"
#include "model/profile.h"

namespace kraken {

struct SeriesStats {
  const Series* series = nullptr;
  std::string label;  // "gpu 0 (GPU-xxxx)", "gpu 0 pid 11345 gpu_burn", "gpu 0 MIG 13 1g.5gb"
  Distribution values;
  double p95 = 0;
};

std::vector<SeriesStats> SummarizeSeries(const Profile& profile);

}  // namespace kraken
