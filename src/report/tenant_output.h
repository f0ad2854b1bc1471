// Rendering of `kraken plan tenants`: the allocation per workload (GPU, how it shares it,
// its SLA against the prediction, why) and per GPU, as text or one JSON document.
#pragma once

#include <string>
#include <vector>

#include "analysis/tenants/tenant_plan.h"

namespace kraken {

std::string RenderTenantPlanText(const tenants::TenantPlan& plan, const std::vector<tenants::TenantWorkload>& workloads,
                                 const std::vector<tenants::AvailableGpu>& gpus);
std::string RenderTenantPlanJson(const tenants::TenantPlan& plan, const std::vector<tenants::TenantWorkload>& workloads,
                                 const std::vector<tenants::AvailableGpu>& gpus);

}  // namespace kraken
