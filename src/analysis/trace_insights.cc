#include "analysis/trace_insights.h"

#include <algorithm>

namespace kraken {

TraceInsights AnalyzeTraceInsights(const Profile& profile, const RankTimeline& timeline,
                                   const TraceInsightsOptions& options) {
  TraceInsights out;
  out.options = options;
  std::vector<StepWindowRef> steps;
  for (const StepTimeline& s : timeline.steps) steps.push_back({s.step_number, s.breakdown.window});
  out.idle = AnalyzeIdleBreakdown(profile, steps, options.idle);
  out.queues = AnalyzeLaunchQueues(profile, options.queue);
  out.bandwidth = AnalyzeMemcpyBandwidth(profile, options.bandwidth);
  out.overlap = AnalyzeOverlap(profile, options.idle.linked_only);
  out.memory = AnalyzeMemoryTimeline(profile, options.memory);
  out.step_kernels = SummarizeKernelsPerStep(profile, steps, options.step_kernel_top_n);
  const CommunicationKernels comm = ClassifyCommunication(profile);
  std::copy(std::begin(comm.kernels), std::end(comm.kernels), std::begin(out.comm_kernels_by));
  std::copy(std::begin(comm.time_ns), std::end(comm.time_ns), std::begin(out.comm_time_by_ns));
  return out;
}

}  // namespace kraken
