// Profile: everything kraken knows about one rank (one process's trace) or one node
// (one sampler's capture). Importers fill it; analyses only read it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/string_table.h"
#include "model/device.h"
#include "model/series.h"
#include "model/trace_events.h"

namespace kraken {

// A CUPTI range-profiler or similar measurement window with counters but no timeline.
struct ProfilerRange {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  int32_t counters_index = -1;  // into Profile::kernel_counters
  std::map<std::string, double> raw_counters;  // counter name -> value as recorded
};

// A class another tool assigned to a kernel (Orion's compute/memory labels, a report's
// memory_bound/compute_bound column). Kept to measure kraken's classification against,
// never used as kraken's own answer.
struct KernelLabel {
  std::string kernel;  // kernel name or id as that tool wrote it
  std::string label;   // as written: "1", "memory_bound", ...
  std::string source;  // which tool: "orion", "llm-perf-opt"
};

// A metric a sampler or exporter declares it collects (dcgm-exporter counters CSV,
// Prometheus # HELP/# TYPE lines), with or without samples.
struct MetricDeclaration {
  std::string source_name;  // DCGM_FI_DEV_GPU_UTIL
  std::string type;         // gauge, counter, label, histogram, summary, untyped
  std::string help;
  Metric metric = Metric::kOther;  // kraken's canonical metric, kOther when none
  // The source's current name when source_name is an old spelling of it (dcgm-exporter
  // 1.x "dcgm_sm_clock" stands for DCGM_FI_DEV_SM_CLOCK); empty otherwise. Lets a 1.x
  // collector list be compared with a current scrape.
  std::string current_name;
};

struct ProfileMetadata {
  std::string source;  // file it came from; "archive.tar.gz:member.json" for archive members
  std::string format;  // name of the importer that read it ("kineto", "ncu-csv", ...)
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  std::string distributed_backend;  // nccl, gloo, ...
  std::string hostname;
  // Absolute Unix time in ns of the trace clock's zero, when the source gave it
  // (Kineto baseTimeNanoseconds); 0 when the timestamps are absolute already.
  int64_t base_time_ns = 0;
  Vendor accelerator_vendor = Vendor::kUnknown;
  // False when kernels carry no real timestamps (Nsight Compute replays kernels one by
  // one; Orion lists only durations): timeline analyses then have nothing to measure.
  bool kernel_timestamps_valid = true;
  // Anything else the source said about itself (schema version, CUDA version, ...).
  std::map<std::string, std::string> attributes;
};

struct Profile {
  ProfileMetadata metadata;
  std::vector<DeviceInfo> devices;
  StringTable strings;

  std::vector<Kernel> kernels;
  std::vector<MemoryOp> memory_ops;
  std::vector<CpuOp> cpu_ops;
  std::vector<RuntimeCall> runtime_calls;
  std::vector<StepAnnotation> steps;
  std::vector<SyncEvent> syncs;
  std::vector<KernelCounters> kernel_counters;
  std::vector<CollectiveInfo> collectives;
  std::vector<ProfilerRange> profiler_ranges;

  std::vector<Series> series;
  std::vector<MetricDeclaration> metric_declarations;
  std::vector<KernelLabel> kernel_labels;

  // Named counts of what the importer saw and skipped (kineto_unknown_category: 12, ...).
  // A bad row increments a counter and the import goes on.
  std::map<std::string, int64_t> import_counters;

  std::string_view Name(StringId id) const { return strings.Get(id); }
  bool has_timeline() const { return !kernels.empty() || !memory_ops.empty() || !cpu_ops.empty(); }
};

}  // namespace kraken
