#include "app/profile_facts.h"

#include <array>
#include <utility>

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "analysis/disagg/disagg_analysis.h"

namespace kraken {

ProfileFacts ComputeProfileFacts(const Profile& profile) {
  ProfileFacts facts;
  WorkloadReport report = CharacterizeWorkload(profile);
  std::vector<WorkloadDemand> demands = DeriveDemands(profile, report);
  if (demands.empty()) return facts;
  const WorkloadDemand& d = demands.front();
  if (!d.workload_type.empty()) facts.workload_type = d.workload_type;
  const std::array<std::pair<const char*, double>, 4> shares = {{{"compute", d.compute_bound_share},
                                                                 {"memory", d.memory_bound_share},
                                                                 {"latency", d.latency_bound_share},
                                                                 {"communication", d.communication_share}}};
  double best = 0;
  for (const auto& [name, share] : shares)
    if (share > best) {
      best = share;
      facts.bound = name;
    }
  // Utilization over every workload the profile yields (each GPU, each phase of a capture),
  // not the first one only: a capture whose first phase is idle would otherwise list 0 %.
  double util_sum = 0;
  int util_count = 0;
  for (const WorkloadDemand& demand : demands)
    if (demand.gpu_busy.measured) {
      util_sum += demand.gpu_busy.mean;
      ++util_count;
    }
  if (util_count > 0) facts.gpu_util = util_sum / util_count;
  facts.disagg_score = disagg::AnalyzeDisaggregation(profile, report, d).score;
  return facts;
}

}  // namespace kraken
