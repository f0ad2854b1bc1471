#include "analysis/insights/cpu_segments.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kraken {
namespace {

struct ThreadEvent {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  CpuSegmentKind kind = CpuSegmentKind::kOperator;
  int32_t index = -1;
};

void Emit(std::vector<CpuSegment>& out, TimeNs start, TimeNs end, CpuSegmentKind kind, int32_t index) {
  if (end <= start) return;
  out.push_back(CpuSegment{start, end, kind, index});
}

// Events sorted by (start, longest first) nest as a stack; a child that outlives its
// parent (clock jitter between records) is cut at the parent's end.
std::vector<CpuSegment> Flatten(std::vector<ThreadEvent>& events) {
  std::sort(events.begin(), events.end(), [](const ThreadEvent& a, const ThreadEvent& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
    return a.kind < b.kind;  // an operator encloses the runtime call of the same span
  });
  std::vector<CpuSegment> out;
  std::vector<ThreadEvent> stack;
  TimeNs cursor = events.empty() ? 0 : events.front().start_ns;
  auto unwind_until = [&](TimeNs limit) {
    while (!stack.empty() && stack.back().end_ns <= limit) {
      const ThreadEvent top = stack.back();
      Emit(out, cursor, top.end_ns, top.kind, top.index);
      cursor = std::max(cursor, top.end_ns);
      stack.pop_back();
    }
  };
  for (ThreadEvent e : events) {
    unwind_until(e.start_ns);
    if (stack.empty()) {
      Emit(out, cursor, e.start_ns, CpuSegmentKind::kIdle, -1);
    } else {
      Emit(out, cursor, e.start_ns, stack.back().kind, stack.back().index);
      e.end_ns = std::min(e.end_ns, stack.back().end_ns);
    }
    cursor = std::max(cursor, e.start_ns);
    stack.push_back(e);
  }
  unwind_until(INT64_MAX);
  return out;
}

}  // namespace

int64_t CpuThreadSegments::SegmentBefore(TimeNs t) const {
  auto it = std::lower_bound(segments.begin(), segments.end(), t,
                             [](const CpuSegment& s, TimeNs value) { return s.start_ns < value; });
  return static_cast<int64_t>(it - segments.begin()) - 1;
}

std::vector<CpuThreadSegments> BuildCpuThreadSegments(const Profile& profile) {
  std::map<std::pair<int64_t, int64_t>, std::vector<ThreadEvent>> by_thread;
  for (size_t i = 0; i < profile.cpu_ops.size(); ++i) {
    const CpuOp& op = profile.cpu_ops[i];
    if (op.category != CpuOpCategory::kOperator) continue;
    by_thread[{op.pid, op.tid}].push_back(
        ThreadEvent{op.start_ns, op.end_ns(), CpuSegmentKind::kOperator, static_cast<int32_t>(i)});
  }
  for (size_t i = 0; i < profile.runtime_calls.size(); ++i) {
    const RuntimeCall& call = profile.runtime_calls[i];
    by_thread[{call.pid, call.tid}].push_back(
        ThreadEvent{call.start_ns, call.end_ns(), CpuSegmentKind::kRuntime, static_cast<int32_t>(i)});
  }
  std::vector<CpuThreadSegments> threads;
  threads.reserve(by_thread.size());
  for (auto& [key, events] : by_thread) {
    CpuThreadSegments thread;
    thread.pid = key.first;
    thread.tid = key.second;
    thread.segments = Flatten(events);
    threads.push_back(std::move(thread));
  }
  return threads;
}

const CpuThreadSegments* FindThread(std::span<const CpuThreadSegments> threads, int64_t pid, int64_t tid) {
  for (const CpuThreadSegments& t : threads)
    if (t.tid == tid && (pid == -1 || t.pid == pid)) return &t;
  return nullptr;
}

}  // namespace kraken
