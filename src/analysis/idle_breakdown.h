// Why the GPU sat idle: each gap between GPU events is split into host wait, kernel wait
// and other, as Holistic Trace Analysis (HTA) defines them:
//   host wait    the event that ends the gap was launched (its runtime call started)
//                after the gap began: the CPU had not enqueued it yet;
//   kernel wait  it was already queued and the gap is shorter than
//                `consecutive_kernel_delay_ns` (30 ns, HTA's default): the launch
//                overhead between back-to-back kernels;
//   other        it was queued and the gap is longer: the GPU waited on something else
//                (a cross-stream event, a synchronisation, a collective's peer).
// An event with no runtime call in the trace (graph-replayed, warm-up) counts as queued.
// Per stream it is HTA's get_idle_time_breakdown: gaps between consecutive GPU events
// (kernels, memcpy, memset) of that stream. For the rank (and per step) kraken applies
// the same rule to the gaps of the union of all streams, so the three parts add up to the
// timeline's idle time (timeline.h); HTA has no such figure (docs/analysis.md).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/step_kernels.h"
#include "model/profile.h"

namespace kraken {

struct IdleParts {
  TimeNs host_wait_ns = 0;
  TimeNs kernel_wait_ns = 0;
  TimeNs other_ns = 0;
  int64_t gaps = 0;

  TimeNs total_ns() const { return host_wait_ns + kernel_wait_ns + other_ns; }
};

struct StreamIdle {
  int32_t device = -1;
  int64_t stream = -1;
  IdleParts idle;
};

struct StepIdle {
  int64_t step_number = -1;
  Interval window;  // the step's GPU window (timeline.h)
  IdleParts idle;   // gaps of the union of all streams, clipped to the window
};

struct IdleBreakdown {
  IdleParts rank;                   // gaps of the union of all streams over the whole trace
  std::vector<StreamIdle> streams;  // HTA's per-stream figures, sorted by (device, stream)
  std::vector<StepIdle> steps;      // empty without step windows
};

struct IdleBreakdownOptions {
  TimeNs consecutive_kernel_delay_ns = 30;  // HTA's default
  bool linked_only = false;                 // as TimelineOptions::linked_only
};

// `steps` are the step GPU windows of the timeline (RankTimeline::steps), may be empty.
IdleBreakdown AnalyzeIdleBreakdown(const Profile& profile, const std::vector<StepWindowRef>& steps,
                                   const IdleBreakdownOptions& options = {});

}  // namespace kraken
