#include "app/ncu_run_facts.h"

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "app/profile_facts.h"
#include "importers/registry.h"

namespace kraken {

Result<NcuRunFacts> ImportNcuRunLog(const std::string& name, std::string log_text) {
  ImportOptions options;
  options.forced_format = "ncu-csv";
  KRAKEN_ASSIGN_OR_RETURN(std::vector<Profile> profiles,
                          ImportBuffer(BuiltinImporters(), name, std::move(log_text), options));
  if (profiles.empty()) return InvalidInput(name + ": no profile in the ncu output");
  const Profile& profile = profiles.front();
  NcuRunFacts facts;
  facts.kernels = static_cast<int64_t>(profile.kernels.size());
  for (const Kernel& k : profile.kernels) facts.kernel_time_s += static_cast<double>(k.duration_ns) * 1e-9;
  if (!profile.devices.empty()) facts.device = profile.devices.front().name;
  ProfileFacts headline = ComputeProfileFacts(profile);
  facts.bound = headline.bound.value_or("");
  WorkloadReport report = CharacterizeWorkload(profile);
  std::vector<WorkloadDemand> demands = DeriveDemands(profile, report);
  if (!demands.empty()) {
    facts.compute_bound_share = demands.front().compute_bound_share;
    facts.memory_bound_share = demands.front().memory_bound_share;
  }
  return facts;
}

}  // namespace kraken
