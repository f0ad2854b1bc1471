#include "analysis/pooling/node_mig_instances.h"

namespace kraken::pooling {

std::vector<std::string> MigProfileOfEachUse(const std::vector<PodGpuUse>& uses, const PoolingReport& report) {
  std::vector<std::string> planned(uses.size());
  for (const PoolGroup& group : report.groups) {
    if (group.action != PoolAction::kMigSlice) continue;
    for (size_t i = 0; i < group.uses.size() && i < group.mig_profiles.size(); ++i)
      if (group.uses[i] >= 0 && static_cast<size_t>(group.uses[i]) < uses.size())
        planned[static_cast<size_t>(group.uses[i])] = group.mig_profiles[i];
  }
  std::vector<std::string> out(uses.size());
  for (const PodRecommendation& rec : report.pods) {
    if (rec.use < 0 || static_cast<size_t>(rec.use) >= uses.size()) continue;
    const size_t i = static_cast<size_t>(rec.use);
    if (rec.action == PoolAction::kMigSlice) out[i] = planned[i];
    if (rec.action == PoolAction::kKeep && !uses[i].mig_profile.empty()) out[i] = uses[i].mig_profile;
  }
  return out;
}

std::map<std::string, std::map<std::string, int>> MigInstancesByNode(const std::vector<PodGpuUse>& uses,
                                                                     const PoolingReport& report) {
  std::map<std::string, std::map<std::string, int>> out;
  std::vector<std::string> profiles = MigProfileOfEachUse(uses, report);
  for (size_t i = 0; i < uses.size(); ++i)
    if (!profiles[i].empty() && !uses[i].node.empty()) ++out[uses[i].node][profiles[i]];
  return out;
}

}  // namespace kraken::pooling
