// The metric groups of the config (metrics.utilization, metrics.pcie, ...): which group a
// canonical metric belongs to, and dropping the values of disabled groups from a batch.
#pragma once

#include "agent/device_batches.h"
#include "config/config.h"
#include "model/sample_batch.h"

namespace kraken::agent {

// Whether the group `metric` belongs to is enabled (metrics of no group always are).
bool MetricEnabled(const config::MetricGroups& groups, Metric metric);

// `out` = `in` without the values of disabled groups (entities all kept). `out`'s
// buffers are reused; `in` is untouched (the sampler reuses its own batch). With `spare`,
// entries a shorter pass cuts keep their buffers for the next longer one (passes that
// skip GPUs, agent.h).
void CopyEnabledMetrics(const config::MetricGroups& groups, const SampleBatch& in, SampleBatch& out,
                        BatchSpare* spare = nullptr);

// Drops the values of the groups a GPU's plan leaves out (its pods' kraken.io/metrics,
// PlanDevices), entities all kept; dropped entries keep their buffers in `spare`. Nothing
// to do, and nothing done, when no plan limits its groups.
void KeepRequestedMetrics(const std::vector<DevicePlan>& plans, SampleBatch& batch, BatchSpare& spare);

}  // namespace kraken::agent
