#include "analysis/colocate/mps_percentage.h"

#include <algorithm>
#include <cmath>

#include "analysis/colocate/colocate.h"

namespace kraken {

std::vector<int> MpsThreadPercentages(const std::vector<ColocationWorkload>& workloads, const DeviceSpec* device) {
  if (workloads.size() < 2) return {};
  ColocateOptions options;
  options.modes = {SharingMode::kMps};
  options.device = device;  // sm_split left empty: the model suggests one
  ColocationReport report = PredictColocation(workloads, options);
  if (report.modes.empty() || !report.modes[0].feasible || report.modes[0].sm_shares.size() != workloads.size())
    return {};
  std::vector<int> out;
  for (double share : report.modes[0].sm_shares)
    out.push_back(static_cast<int>(std::clamp<long>(std::lround(share * 100), 1, 100)));
  return out;
}

}  // namespace kraken
