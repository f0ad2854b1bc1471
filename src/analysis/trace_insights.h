// The HTA-style analyses of one rank, gathered for the workload report: why the GPU sat
// idle, how full the launch queues ran, copy bandwidth, named overlap categories, the
// allocator's memory timeline, per-step kernel tables, and what the trace says about its
// communication kernels. Each is its own pure function (see the headers below); this
// only runs them once over the timeline's step windows.
#pragma once

#include <vector>

#include "analysis/communication.h"
#include "analysis/idle_breakdown.h"
#include "analysis/launch_queue.h"
#include "analysis/memcpy_bandwidth.h"
#include "analysis/memory_timeline.h"
#include "analysis/overlap.h"
#include "analysis/step_kernels.h"
#include "analysis/timeline.h"

namespace kraken {

struct TraceInsightsOptions {
  IdleBreakdownOptions idle;
  LaunchQueueOptions queue;
  MemcpyBandwidthOptions bandwidth;
  MemoryTimelineOptions memory;
  size_t step_kernel_top_n = 5;
};

struct TraceInsights {
  TraceInsightsOptions options;  // the settings they were computed with
  IdleBreakdown idle;
  LaunchQueues queues;
  std::vector<CopyKindBandwidth> bandwidth;
  OverlapBreakdown overlap;
  std::vector<DeviceMemoryTimeline> memory;
  std::vector<StepKernelTable> step_kernels;
  // Communication kernels and their time by the evidence that made them so (communication.h).
  int64_t comm_kernels_by[5] = {};
  TimeNs comm_time_by_ns[5] = {};
};

TraceInsights AnalyzeTraceInsights(const Profile& profile, const RankTimeline& timeline,
                                   const TraceInsightsOptions& options = {});

}  // namespace kraken
