// The CUDA_MPS_ACTIVE_THREAD_PERCENTAGE the co-location model recommends for each of the
// workloads that share one GPU under MPS: the SM split kraken's MPS search picks (the one
// minimising the worst predicted penalty, QoS limits first; colocate.h SuggestMpsSplit)
// as whole percentages, 1..100. Used by the scheduler extender (per pending pod) and the
// controller (per pod of a share group), docs/scheduler-extender.md "MPS thread percentage".
#pragma once

#include <vector>

#include "model/colocation.h"
#include "model/device.h"

namespace kraken {

// One percentage per workload, in order; empty when fewer than two workloads, or when
// the model gives no MPS prediction (e.g. they do not fit the GPU's memory).
std::vector<int> MpsThreadPercentages(const std::vector<ColocationWorkload>& workloads, const DeviceSpec* device);

}  // namespace kraken
