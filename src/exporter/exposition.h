// Renders the latest sampling pass as Prometheus text exposition (format 0.0.4) with the
// metric names and labels of dcgm-exporter, so that dashboards and alerts written for it
// work unchanged on kraken's agent; plus kraken_agent_* metrics about the agent itself.
// Pure: batch + devices + hostname in, text out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/device.h"
#include "model/sample_batch.h"

namespace kraken::exporter {

// What the agent knows about its own work; rendered as kraken_agent_* metrics.
struct AgentStats {
  int64_t samples_total = 0;               // sampling passes since start
  double last_sample_duration_seconds = 0;  // wall time of the newest pass
  int64_t store_errors_total = 0;           // batches the store refused
};

struct ExpositionInput {
  const SampleBatch* batch = nullptr;               // newest pass; null = nothing sampled yet
  const std::vector<DeviceInfo>* devices = nullptr;  // for device="nvidia<minor>"; may be null
  std::string hostname;                              // the Hostname label
  const AgentStats* agent = nullptr;                 // null = no kraken_agent_* metrics
};

// Appends to `out` (cleared first; its capacity is reused between scrapes).
//  - one "# HELP" and "# TYPE" per metric family that has at least one value;
//  - GPU and MIG-instance values only (dcgm-exporter has no per-process series); a metric
//    the device did not report is absent, never 0;
//  - labels gpu, UUID, pci_bus_id, device, modelName, then GPU_I_PROFILE, GPU_I_ID for MIG
//    instances, Hostname, then container, namespace, pod when the entity has them.
void RenderExposition(const ExpositionInput& input, std::string& out);

// The content type of that text.
inline constexpr const char* kExpositionContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace kraken::exporter

namespace kraken::exporter {

// "{gpu=...,UUID=...,...}" of one GPU / MIG-instance entity: the labels RenderExposition
// gives its series ("" when none), for other families about the same GPU (the kraken_*
// analysis metrics of workload_exposition.h) so that they join on the same label set.
std::string EntityLabels(const SeriesEntity& entity, const ExpositionInput& input);

}  // namespace kraken::exporter
