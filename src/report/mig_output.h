// Rendering of `kraken mig-plan` results: text tables (per-workload choice, per-GPU
// layout, totals, workloads not to slice) or one JSON document (docs/mig-planning.md).
#pragma once

#include <string>
#include <vector>

#include "analysis/mig/mig_plan.h"

namespace kraken {

std::string RenderMigPlanText(const mig::MigPlan& plan, const std::vector<mig::MigWorkload>& workloads, bool explain);
std::string RenderMigPlanJson(const mig::MigPlan& plan, const std::vector<mig::MigWorkload>& workloads, bool explain);

}  // namespace kraken
