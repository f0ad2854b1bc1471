#include "analysis/pooling/share_mps.h"

#include "analysis/colocate/mps_percentage.h"
#include "analysis/colocate/workload_inputs.h"

namespace kraken::pooling {

std::map<int, int> MpsPercentagesOfShareGroups(const std::vector<PodGpuUse>& uses, const PoolingReport& report) {
  std::map<int, int> out;
  for (const PoolGroup& group : report.groups) {
    if (group.action != PoolAction::kShare || group.uses.size() < 2) continue;
    std::vector<ColocationWorkload> workloads;
    const DeviceSpec* device = nullptr;
    for (int use : group.uses) {
      if (use < 0 || static_cast<size_t>(use) >= uses.size()) return out;
      const PodGpuUse& u = uses[static_cast<size_t>(use)];
      workloads.push_back(BuildColocationWorkload(u.demand, {}, ColocationParameters{}));
      workloads.back().name = u.namespace_name + "/" + u.pod;
      if (device == nullptr) device = u.device;
    }
    std::vector<int> percentages = MpsThreadPercentages(workloads, device);
    for (size_t i = 0; i < percentages.size(); ++i) out[group.uses[i]] = percentages[i];
  }
  return out;
}

}  // namespace kraken::pooling
