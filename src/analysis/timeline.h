// GPU timeline breakdown of one rank: how the span from the first to the last GPU event
// splits into compute, communication, memcpy and idle, over the whole trace, per stream,
// and per profiler step.
//
// Definitions (they match TraceLens' GPU timeline, see docs/analysis.md):
//   GPU events     kernels, memcpy and memset (Kineto cat kernel/gpu_memcpy/gpu_memset and
//                  the legacy Kernel/Memcpy/Memset; MTIA device ops and DMA).
//   communication  kernels whose name contains nccl, rccl or cross_device_reduce (any case)
//   memcpy         memcpy events
//   compute        every other GPU event, memset included
//   total          last GPU event end - first GPU event start (in the window)
//   busy           |union of all GPU events|        idle = total - busy
//   compute        |union(compute)|                 comm = |union(comm)|
//   exposed comm   |union(comm) - union(compute)|
//   memcpy         |union(memcpy)|
//   exposed memcpy |union(memcpy) - union(compute) - union(comm)|
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/intervals.h"
#include "model/profile.h"

namespace kraken {

struct TimelineOptions {
  // TraceLens drops GPU events with no runtime call of the same correlation id
  // (include_unlinked_kernels=False). kraken keeps them by default: graph-replayed
  // kernels are real GPU work.
  bool linked_only = false;
};

struct TimelineBreakdown {
  Interval window;  // the span measured
  TimeNs total_ns = 0;
  TimeNs busy_ns = 0;
  TimeNs idle_ns = 0;
  TimeNs compute_ns = 0;
  TimeNs comm_ns = 0;
  TimeNs exposed_comm_ns = 0;
  TimeNs memcpy_ns = 0;
  TimeNs exposed_memcpy_ns = 0;
  int64_t gpu_events = 0;  // events that contributed (after clipping to the window)

  double idle_pct() const { return total_ns > 0 ? 100.0 * static_cast<double>(idle_ns) / total_ns : 0; }
  double pct(TimeNs part) const { return total_ns > 0 ? 100.0 * static_cast<double>(part) / total_ns : 0; }
};

struct StreamTimeline {
  int32_t device = -1;
  int64_t stream = -1;
  // Measured over the rank's whole-trace window, so idle % of streams compare.
  TimelineBreakdown breakdown;
};

// One ProfilerStep. Its GPU window starts at the first GPU event launched by the step
// (linked by correlation id to a runtime call inside the step's CPU range, or starting
// inside that range) and ends where the next step's GPU window starts; the last step's
// window ends at the end of its last GPU event. So the windows tile the stepped part of
// the trace and idle time between steps belongs to the step before it.
struct StepTimeline {
  int64_t step_number = -1;
  Interval cpu_window;
  TimelineBreakdown breakdown;  // window = the step's GPU window
};

struct RankTimeline {
  TimelineBreakdown trace;            // whole trace
  std::vector<StreamTimeline> streams;  // sorted by (device, stream)
  std::vector<StepTimeline> steps;      // sorted by step start; empty without ProfilerSteps
  // Over the union of the step windows (first step's GPU start to last step's GPU end);
  // absent without steps.
  std::optional<TimelineBreakdown> steps_total;
};

// True for NCCL/RCCL and custom all-reduce kernels (name contains nccl, rccl or
// cross_device_reduce, case-insensitive).
bool IsCommunicationKernelName(std::string_view name);

RankTimeline AnalyzeTimeline(const Profile& profile, const TimelineOptions& options = {});

}  // namespace kraken
