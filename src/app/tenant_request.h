// `kraken plan tenants FILE`, the C API's kraken_plan_tenants and Python's
// MultiTenancyPlanner: the tenants file (docs/tenants.md), the GPUs, the objective, and
// the one path to the allocation plan's document.
#pragma once

#include <string>
#include <vector>

#include "app/profile_inputs.h"
#include "base/status.h"

namespace kraken {

struct TenantPlanSettings {
  std::string tenants;            // CSV: tenant,workload,profile,type,p99_ms,rate_per_s,min_throughput
  std::vector<std::string> gpus;  // MODEL[:mig][@USD_PER_HOUR][=NAME], e.g. a100-40gb-sxm:mig
  std::string optimize = "balanced";
  std::string prices;             // --prices FILE for the GPUs' $/hour; "" = built-in catalog
};

Result<std::string> RenderTenantPlan(const TenantPlanSettings& settings, const InputOptions& inputs, bool json);

}  // namespace kraken
