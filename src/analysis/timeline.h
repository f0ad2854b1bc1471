// GPU timeline breakdown of one rank: how the span from the first to the last GPU event
// splits into compute, communication, memcpy and idle, over the whole trace, per stream,
// and per profiler step.
//
// Definitions (they match TraceLens' GPU timeline, see docs/analysis-timeline.md):
//   GPU events     kernels, memcpy and memset (Kineto cat kernel/gpu_memcpy/gpu_memset and
//                  the legacy Kernel/Memcpy/Memset; MTIA device ops and DMA).
//   communication  kernels that are communication by name family, collective args, the
//                  launching CPU op or stream use (communication.h); by name alone these
//                  are the kernels named nccl, rccl, cross_device_reduce, multimem, ...
//   memcpy         memcpy events, and ROCm's own copy kernels (MEMORY_COPY_*,
//                  __amd_rocclr_copyBuffer*) that older ROCm records as kernels
//   compute        every other GPU event, memset included
//   total          last GPU event end - first GPU event start (in the window); events
//                  of zero duration count as events and may bound the span, add no time
//   busy           |union of all GPU events|        idle = total - busy
//   compute        |union(compute)|                 comm = |union(comm)|
//   exposed comm   |union(comm) - union(compute)|
//   memcpy         |union(memcpy)|
//   exposed memcpy |union(memcpy) - union(compute) - union(comm)|
// All of it over the rank's GPU events of every device together (one device per rank is
// the usual case). Nothing is computed when kernel_timestamps_valid is false.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/communication.h"
#include "analysis/intervals.h"
#include "analysis/timeline_breakdown.h"
#include "model/profile.h"

namespace kraken {

struct TimelineOptions {
  // TraceLens drops GPU events with no runtime call of the same correlation id
  // (include_unlinked_kernels=False; it links through the ac2g flow, kraken by the id).
  // kraken keeps them by default: graph-replayed and warm-up kernels are real GPU work.
  bool linked_only = false;
};

struct StreamTimeline {
  int32_t device = -1;
  int64_t stream = -1;
  // The stream's own events, measured over the rank's whole-trace window so idle % of
  // streams compare (exposed comm here = comm not hidden by compute on this stream).
  TimelineBreakdown breakdown;
};

// One ProfilerStep. Its GPU window starts at the first GPU event launched by the step
// (linked by correlation id to a runtime call inside the step's CPU range, or starting
// inside that range when it has no such call) and ends where the next step's GPU window
// starts; the last step's window ends at the end of its last GPU event (or of any step's,
// should an earlier step's work end later still). So the windows tile the stepped part
// of the trace, and idle time between steps belongs to the step before it.
// Windows never go backwards: when a step's first GPU event starts before the previous
// step's, its window starts where the previous one's does, leaving that one empty. A step
// that launched no GPU event gets an empty window at the boundary where it would sit.
struct StepTimeline {
  int64_t step_number = -1;
  Interval cpu_window;
  TimelineBreakdown breakdown;  // window = the step's GPU window
  // GPU events launched by the step, and the end of the last of them (it can lie past
  // the window when the next step's work starts first); -1 without events. HTA measures
  // a run of steps from the first one's GPU start to this end of the last one.
  int64_t launched_gpu_events = 0;
  TimeNs last_gpu_end_ns = -1;
};

struct RankTimeline {
  TimelineBreakdown trace;            // whole trace
  std::vector<StreamTimeline> streams;  // sorted by (device, stream)
  std::vector<StepTimeline> steps;      // sorted by step start; empty without ProfilerSteps
  // Over the union of the step windows (first step's GPU start to last step's GPU end);
  // absent without steps or when no step launched a GPU event.
  std::optional<TimelineBreakdown> steps_total;
};

RankTimeline AnalyzeTimeline(const Profile& profile, const TimelineOptions& options = {});

// The breakdown over an arbitrary window (total = the window's length; events clipped to
// it), e.g. a run of steps. Empty breakdown when kernel_timestamps_valid is false.
TimelineBreakdown AnalyzeTimelineWindow(const Profile& profile, const Interval& window,
                                        const TimelineOptions& options = {});

}  // namespace kraken
