// Metric samples over time: what samplers (NVML, nvidia-smi, dcgm-exporter) record.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/metrics.h"
#include "model/trace_events.h"

namespace kraken {

struct Sample {
  TimeNs time_ns = 0;  // absolute (Unix epoch) when the source had a clock, else relative
  double value = 0;
};

// Which thing a series describes: a GPU, a MIG instance of it, or a process on it.
// Fields the source did not report stay empty / -1.
struct SeriesEntity {
  int32_t gpu_index = -1;
  std::string gpu_uuid;
  std::string gpu_name;
  std::string pci_bus_id;
  int32_t gpu_instance_id = -1;  // MIG GPU instance; -1 = the whole GPU
  std::string mig_profile;       // "1g.5gb"
  int64_t pid = -1;
  std::string process_name;
  std::string hostname;
  // Kubernetes attribution when the source had it (dcgm-exporter -k).
  std::string pod;
  std::string namespace_name;
  std::string container;
  // Other labels, kept as the source spelled them.
  std::map<std::string, std::string> labels;
};

// What Sample::time_ns counts. Samplers have clocks (kTimeNs); a few sources index their
// samples by training iteration instead (PAI mini-batch-time: one value per iteration,
// no clock at all). Then time_ns holds the iteration number, and analyses that need real
// time (forecast horizons in hours, clock-time phases) must not read it as nanoseconds.
enum class SampleAxis : uint8_t { kTimeNs, kIteration };

struct Series {
  Metric metric = Metric::kOther;
  SampleAxis axis = SampleAxis::kTimeNs;
  std::string source_name;  // the field as the source named it (DCGM_FI_DEV_GPU_UTIL, sm, ...)
  SeriesEntity entity;
  std::vector<Sample> samples;
};

}  // namespace kraken
