// `kraken mig-plan` and the C API's kraken_mig_plan: the settings a request may give, the
// workloads of its inputs (plan CSVs, profiles from files or the store, --workload flags)
// and the one path to the plan's document.
#pragma once

#include <string>
#include <vector>

#include "analysis/mig/mig_plan.h"
#include "app/profile_inputs.h"
#include "app/slowdown_budget.h"
#include "base/status.h"
#include "model/mig_catalog.h"

namespace kraken {

struct MigPlanSettings {
  std::string gpu = "h100-sxm";        // GPU model to plan for (a MIG geometry)
  std::string headroom = "10%";        // memory headroom over the measured peak
  double max_slowdown_pct = kDefaultMaxSlowdownPct;  // expected slowdown (%) a slice may cost
  std::vector<std::string> workloads;  // NAME:MEMORY_GIB:SM_FRACTION, workloads without a profile
  bool explain = false;
  bool slice_alone = false;  // slice a workload packing leaves alone on its GPU (MigPlanOptions)
  // What to write: "plan" (the plan's document), "mig-parted" (the nvidia-mig-parted
  // config of the plan's node layouts) or "node-labels" (the nvidia.com/mig.config label
  // per node as kubectl commands).
  std::string emit = "plan";
  int gpus_per_node = 8;
  std::vector<std::string> nodes;  // node names, in the order the plan fills them
};

// The settings checked (messages name the CLI flags).
struct MigPlanSetup {
  const MigGeometry* geometry = nullptr;
  mig::MigPlanOptions options;
};
Result<MigPlanSetup> MakeMigPlanSetup(const MigPlanSettings& settings);

// The workloads of the inputs in order: a plan CSV's rows, else the demands of the
// profiles the argument imports or loads from the store.
Result<std::vector<mig::MigWorkload>> LoadMigWorkloads(const std::vector<std::string>& arguments,
                                                       const InputOptions& options);

// Adds the settings' --workload entries and renders the plan; InvalidInput without any
// workload.
Result<std::string> RenderMigPlan(std::vector<mig::MigWorkload> workloads, const MigPlanSettings& settings,
                                  const MigPlanSetup& setup, bool json);

}  // namespace kraken
