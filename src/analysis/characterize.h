// Workload characterization of one profile: every analysis kraken runs on a trace,
// gathered in one report that the CLI prints and that later stages (pooling advice,
// the server) consume.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/distribution.h"
#include "analysis/kernel_summary.h"
#include "analysis/launch_stats.h"
#include "analysis/tb_plugin_overview.h"
#include "analysis/timeline.h"
#include "analysis/trace_insights.h"
#include "analysis/workload_type.h"
#include "model/profile.h"

namespace kraken {

struct Diagnosis {
  std::string id;        // stable key: gpu_idle, exposed_communication, ...
  std::string severity;  // high, medium, low, info
  std::string summary;   // one sentence with the numbers
  std::vector<std::pair<std::string, double>> evidence;  // figures it rests on
  std::string recommendation;
};

struct CharacterizeOptions {
  // Catalog entry for the roofline; when null, the profile's first GPU is matched by name.
  const DeviceSpec* device = nullptr;
  TimelineOptions timeline;
  KernelSummaryOptions kernels;
  LaunchStatsOptions launches;
  // --window steps: the kernel table covers the kernels that start in the stepped span.
  bool kernels_over_steps = false;
  TraceInsightsOptions insights;
};

struct WorkloadReport {
  std::string device_name;              // as the source reported it
  const DeviceSpec* device_spec = nullptr;
  int32_t sm_count = 0;
  RankTimeline timeline;
  std::optional<TbPluginOverview> tb_plugin;
  KernelSummary kernels;
  LaunchStats launches;
  Distribution step_time_ns;  // CPU ProfilerStep durations
  WorkloadTypeResult workload_type;
  std::optional<double> peak_allocated_bytes;  // framework allocator, when recorded
  std::optional<double> peak_reserved_bytes;
  // CUDA allocations outstanding (kraken's CUPTI tracer's memory records), when recorded:
  // per device the peak of its processes' sum, the largest device's. Without the CUDA
  // context and stream-ordered pools.
  std::optional<double> peak_cuda_allocated_bytes;
  std::vector<Diagnosis> diagnoses;
  TraceInsights insights;  // idle causes, launch queues, bandwidth, overlap, memory, ...

  // The breakdown diagnoses and summaries use: over the steps when there are steps,
  // else over the whole trace.
  const TimelineBreakdown& main_window() const {
    return timeline.steps_total ? *timeline.steps_total : timeline.trace;
  }
};

WorkloadReport CharacterizeWorkload(const Profile& profile, const CharacterizeOptions& options = {});

// The rules behind WorkloadReport::diagnoses (see docs/analysis.md for thresholds).
std::vector<Diagnosis> Diagnose(const Profile& profile, const WorkloadReport& report);

}  // namespace kraken
