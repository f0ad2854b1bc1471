// The dashboard's timeline explorer (#/timeline/ID): the kernels of one profile per stream,
// queried one visible window at a time. An index is built once per profile (kernels per
// stream sorted by start, each linked to the CPU op that launched it through Kineto's
// external id); each query then returns only the kernels overlapping the window, or, where
// a stream has more of them than the view has pixels, per-pixel buckets (count and busy
// time), so the answer stays small whatever the trace size. The launching op is the
// operator with the kernel's external id, else (traces such as MTIA's carry only the
// correlation) the innermost operator around the runtime call with the kernel's
// correlation id on that call's thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace kraken {

struct TimelineQuery {
  TimeNs start_ns = 0;  // start_ns == end_ns == 0: the whole trace
  TimeNs end_ns = 0;
  int64_t width_px = 1000;  // buckets per stream when bucketed
};

// The most pixels a query may ask for, and the per-pixel event budget before a stream
// is bucketed: the document stays under a few MB.
constexpr int64_t kTimelineMaxWidthPx = 8000;

class TimelineIndex {
 public:
  // Keeps `profile` (moved in) for the names it refers to.
  explicit TimelineIndex(Profile profile);

  TimeNs trace_start_ns() const { return trace_start_ns_; }
  TimeNs trace_end_ns() const { return trace_end_ns_; }
  size_t kernel_count() const { return kernel_count_; }

  // The `kraken timeline` document (docs/api.md, GET /api/v1/profiles/{id}/timeline).
  Result<std::string> RenderWindowJson(const TimelineQuery& query) const;

 private:
  struct Lane {
    int32_t device = -1;
    int64_t stream = -1;
    std::vector<const Kernel*> kernels;  // by start
    TimeNs longest_ns = 0;               // bounds the search for kernels that start before a window
  };
  const CpuOp* OpWithExternalId(int64_t external_id) const;
  const CpuOp* EnclosingOp(const RuntimeCall& call) const;
  std::string_view LaunchingOpName(const Kernel& k) const;

  Profile profile_;
  std::vector<Lane> lanes_;
  std::vector<std::pair<int64_t, const CpuOp*>> ops_by_external_id_;  // sorted by id
  std::vector<const RuntimeCall*> calls_by_correlation_;              // sorted by correlation id
  std::map<std::pair<int64_t, int64_t>, std::vector<const CpuOp*>> ops_by_thread_;  // by start
  TimeNs trace_start_ns_ = 0;
  TimeNs trace_end_ns_ = 0;
  size_t kernel_count_ = 0;
};

}  // namespace kraken
