#include "analysis/pooling/node_mig_instances.h"

namespace kraken::pooling {

std::map<std::string, std::map<std::string, int>> MigInstancesByNode(const std::vector<PodGpuUse>& uses,
                                                                     const PoolingReport& report) {
  std::map<std::string, std::map<std::string, int>> out;
  std::vector<std::string> planned(uses.size());
  for (const PoolGroup& group : report.groups) {
    if (group.action != PoolAction::kMigSlice) continue;
    for (size_t i = 0; i < group.uses.size() && i < group.mig_profiles.size(); ++i)
      if (group.uses[i] >= 0 && static_cast<size_t>(group.uses[i]) < uses.size())
        planned[static_cast<size_t>(group.uses[i])] = group.mig_profiles[i];
  }
  for (const PodRecommendation& rec : report.pods) {
    if (rec.use < 0 || static_cast<size_t>(rec.use) >= uses.size()) continue;
    const PodGpuUse& use = uses[static_cast<size_t>(rec.use)];
    std::string profile;
    if (rec.action == PoolAction::kMigSlice) profile = planned[static_cast<size_t>(rec.use)];
    if (rec.action == PoolAction::kKeep && !use.mig_profile.empty()) profile = use.mig_profile;
    if (!profile.empty() && !use.node.empty()) ++out[use.node][profile];
  }
  return out;
}

}  // namespace kraken::pooling
