// `kraken plan tenants FILE`, the C API's kraken_plan_tenants and Python's
// MultiTenancyPlanner: the tenants file (docs/tenants.md), the GPUs, the objective, and
// the one path to the allocation plan's document.
#pragma once

#include <string>
#include <vector>

#include "analysis/cost/price_catalog.h"
#include "analysis/tenants/tenant_plan.h"
#include "app/profile_inputs.h"
#include "base/status.h"

namespace kraken {

struct TenantPlanSettings {
  std::string tenants;            // CSV: tenant,workload,profile,type,p99_ms,rate_per_s,min_throughput
  std::vector<std::string> gpus;  // MODEL[:mig][@USD_PER_HOUR][=NAME], e.g. a100-40gb-sxm:mig
  std::string optimize = "balanced";
  std::string prices;             // --prices FILE for the GPUs' $/hour; "" = built-in catalog
};

// One workload of the tenants file: its SLA, the profile it names (a path relative to the
// file, or a stored id) and the line it came from.
struct TenantRow {
  tenants::TenantWorkload workload;
  std::string profile;
  size_t line = 0;
};

// The tenants file's rows; errors name `origin`, the line and the cell. Comment lines (#) and
// blank lines are skipped; at most 256 workloads.
Result<std::vector<TenantRow>> ParseTenantsCsv(const std::string& text, const std::string& origin);

// --gpus specs (MODEL[:mig][@USD_PER_HOUR][=NAME]) against the device catalog, priced from
// `catalog` where no price is given; at most 256.
Result<std::vector<tenants::AvailableGpu>> ParseGpus(const std::vector<std::string>& specs,
                                                     const std::vector<cost::InstancePrice>& catalog);

Result<std::string> RenderTenantPlan(const TenantPlanSettings& settings, const InputOptions& inputs, bool json);

}  // namespace kraken
