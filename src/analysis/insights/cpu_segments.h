// The CPU side of a rank flattened per thread: each thread's time cut into segments that
// say what was innermost at that moment (an operator, a runtime call, or nothing), so a
// walk backwards along a thread finds "what was this thread doing at t" by binary search.
// Used by the critical path; user annotations and Python frames are left out because they
// envelop everything (a ProfilerStep would turn every gap into "operator" time).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/profile.h"

namespace kraken {

enum class CpuSegmentKind : uint8_t {
  kIdle,      // inside no operator and no runtime call (Python, framework, waiting)
  kOperator,  // innermost is a framework operator (aten::..., c10d::...)
  kRuntime,   // innermost is a CUDA/HIP runtime or driver call
};

struct CpuSegment {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  CpuSegmentKind kind = CpuSegmentKind::kIdle;
  int32_t index = -1;  // into Profile::cpu_ops (kOperator) or Profile::runtime_calls (kRuntime)
};

struct CpuThreadSegments {
  int64_t pid = -1;
  int64_t tid = -1;
  std::vector<CpuSegment> segments;  // sorted, disjoint, gaps filled with kIdle

  // Index of the segment holding the instant just before `t` (start < t <= end), the
  // last one starting before t when t lies past the end; -1 when t is at or before the
  // first segment's start.
  int64_t SegmentBefore(TimeNs t) const;
};

// One entry per (pid, tid) that has operators or runtime calls, sorted by (pid, tid).
std::vector<CpuThreadSegments> BuildCpuThreadSegments(const Profile& profile);

// The thread with this (pid, tid), or the first with this tid when pid is -1; null if none.
const CpuThreadSegments* FindThread(std::span<const CpuThreadSegments> threads, int64_t pid, int64_t tid);

}  // namespace kraken
