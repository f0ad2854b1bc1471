// Per pod of each share group of the pooling plan (pods advised to share one GPU), the
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE the co-location model recommends if they share it
// under MPS (analysis/colocate/mps_percentage.h), for the controller's
// kraken.io/mps-active-thread-percentage annotation. Use index -> percentage; pods of
// groups the model gives no split for are absent.
#pragma once

#include <map>
#include <vector>

#include "analysis/pooling/pod_pooling.h"

namespace kraken::pooling {

std::map<int, int> MpsPercentagesOfShareGroups(const std::vector<PodGpuUse>& uses, const PoolingReport& report);

}  // namespace kraken::pooling
