#include "analysis/insights/critical_path.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/insights/critical_path_graph.h"

namespace kraken {
namespace {

constexpr std::string_view kKindNames[kCriticalPathKinds] = {
    "cpu_operator",  "cpu_launch",  "cpu_runtime",       "cpu_sync",   "cpu_idle",    "launch_delay",
    "gpu_kernel_gap", "gpu_compute", "gpu_communication", "gpu_memcpy", "unattributed"};

size_t Slot(CriticalPathKind kind) { return static_cast<size_t>(kind); }

// Time per (kind, name) on the path, for the "top" list.
using NameTimes = std::unordered_map<uint64_t, std::pair<TimeNs, int64_t>>;

uint64_t NameKey(CriticalPathKind kind, StringId name) { return (uint64_t{Slot(kind)} << 32) | name; }

// One backward walk over a window; see the header for the rules it follows.
class PathWalker {
 public:
  PathWalker(const CriticalPathGraph& graph, const Interval& window, CriticalPathWindow* out, NameTimes* names)
      : graph_(graph), window_(window), out_(out), names_(names) {
    budget_ = 4 * static_cast<int64_t>(graph.gpu_events().size() + graph.profile().runtime_calls.size() +
                                       graph.profile().cpu_ops.size()) + 64;
  }

  // Returns false when the step budget ran out before the window start was reached.
  bool FromGpu(int32_t event, TimeNs t) {
    gpu_ = event;
    t_ = t;
    on_gpu_ = true;
    return Run();
  }
  bool FromCpu(const CpuThreadSegments* thread, TimeNs t) {
    thread_ = thread;
    t_ = t;
    on_gpu_ = false;
    return Run();
  }

 private:
  bool Run() {
    while (t_ > window_.start_ns) {
      if (--budget_ < 0) return false;
      bool more = on_gpu_ ? GpuStep() : CpuStep();
      if (!more) break;
    }
    return true;
  }

  void Add(CriticalPathKind kind, TimeNs ns, StringId name, bool count_event) {
    if (ns < 0) ns = 0;
    out_->by_kind[Slot(kind)] += ns;
    if (name == StringTable::kEmpty) return;
    auto& [time, count] = (*names_)[NameKey(kind, name)];
    time += ns;
    if (count_event) ++count;
  }

  // Time from the window start (or `floor`) up to t_, clipped to the window.
  TimeNs Span(TimeNs from, TimeNs to) const { return std::max<TimeNs>(0, to - std::max(from, window_.start_ns)); }

  bool GpuStep() {
    const PathGpuEvent& e = graph_.gpu_events()[gpu_];
    const TimeNs hi = std::min(e.end_ns, t_);
    Add(e.kind, Span(e.start_ns, hi), e.name, true);
    ++out_->events_on_path;
    if (e.start_ns <= window_.start_ns) return false;
    const TimeNs prev_end =
        e.previous_on_stream >= 0 ? std::min(graph_.gpu_events()[e.previous_on_stream].end_ns, e.start_ns) : INT64_MIN;
    TimeNs launch_end = INT64_MIN;
    const CpuThreadSegments* thread = nullptr;
    if (e.launch_call >= 0) {
      const RuntimeCall& call = graph_.profile().runtime_calls[e.launch_call];
      thread = graph_.ThreadOf(call.pid, call.tid);
      if (thread != nullptr) launch_end = std::min(call.end_ns(), e.start_ns);
    }
    if (FollowOtherStream(e, std::max(prev_end, launch_end))) return true;
    if (launch_end > prev_end) {
      Add(CriticalPathKind::kLaunchDelay, Span(launch_end, e.start_ns), e.name, false);
      thread_ = thread;
      t_ = launch_end;
      on_gpu_ = false;
      return true;
    }
    if (e.previous_on_stream < 0) {
      Add(CriticalPathKind::kUnattributed, Span(window_.start_ns, e.start_ns), StringTable::kEmpty, false);
      return false;
    }
    Add(CriticalPathKind::kGpuKernelGap, Span(prev_end, e.start_ns), e.name, false);
    gpu_ = e.previous_on_stream;
    t_ = prev_end;
    return true;
  }

  // An event that started after both its stream predecessor and its launch call had
  // finished waited for something else: on the GPU, an event of another stream
  // (cudaStreamWaitEvent, NCCL's stream dependencies). The path follows the GPU event
  // that ended last before it started, when that ended after both.
  bool FollowOtherStream(const PathGpuEvent& e, TimeNs released) {
    if (released == INT64_MIN || released >= e.start_ns) return false;
    const int32_t other = graph_.LastGpuEndingIn(released, e.start_ns);
    if (other < 0) return false;
    const TimeNs other_end = graph_.gpu_events()[other].end_ns;
    Add(CriticalPathKind::kGpuKernelGap, Span(other_end, e.start_ns), e.name, false);
    gpu_ = other;
    t_ = other_end;
    return true;
  }

  bool CpuStep() {
    // Walking back along one thread visits its segments in order: no search needed.
    const int64_t i = next_segment_ != kNoHint ? next_segment_ : thread_->SegmentBefore(t_);
    next_segment_ = kNoHint;
    if (i < 0) return IdleStep(CpuSegment{window_.start_ns, t_, CpuSegmentKind::kIdle, -1});
    const CpuSegment& seg = thread_->segments[i];
    if (seg.end_ns < t_) return IdleStep(CpuSegment{seg.end_ns, t_, CpuSegmentKind::kIdle, -1});
    if (seg.kind == CpuSegmentKind::kRuntime && graph_.role(seg.index) == RuntimeRole::kBlocking) {
      const int32_t released_by = graph_.LastGpuEndingIn(seg.start_ns, t_);
      if (released_by >= 0) {
        const TimeNs gpu_end = graph_.gpu_events()[released_by].end_ns;
        Add(CriticalPathKind::kCpuSync, Span(gpu_end, t_), graph_.profile().runtime_calls[seg.index].name, true);
        gpu_ = released_by;
        t_ = gpu_end;
        on_gpu_ = true;
        return true;
      }
    }
    if (seg.kind == CpuSegmentKind::kIdle) return IdleStep(seg, i - 1);
    CriticalPathKind kind = CriticalPathKind::kCpuIdle;
    StringId name = StringTable::kEmpty;
    if (seg.kind == CpuSegmentKind::kOperator) {
      kind = CriticalPathKind::kCpuOperator;
      name = graph_.profile().cpu_ops[seg.index].name;
    } else if (seg.kind == CpuSegmentKind::kRuntime) {
      const RuntimeRole role = graph_.role(seg.index);
      kind = role == RuntimeRole::kLaunch     ? CriticalPathKind::kCpuLaunch
             : role == RuntimeRole::kBlocking ? CriticalPathKind::kCpuSync
                                              : CriticalPathKind::kCpuRuntime;
      name = graph_.profile().runtime_calls[seg.index].name;
    }
    Add(kind, Span(seg.start_ns, t_), name, seg.end_ns <= t_);
    t_ = seg.start_ns;
    next_segment_ = i - 1;
    return true;
  }

  // The thread did nothing itself: when another thread finished work inside the gap,
  // this thread was waiting for it (the Python main thread in loss.backward() waits for
  // the autograd thread), so the path moves there; otherwise the gap is the thread's own.
  // `previous` is the index of the segment before `seg` on this thread (kNoHint when
  // `seg` is not one of the thread's own).
  bool IdleStep(const CpuSegment& seg, int64_t previous = kNoHint) {
    TimeNs best_end = seg.start_ns;
    const CpuThreadSegments* best = nullptr;
    for (const CpuThreadSegments& other : graph_.threads()) {
      if (&other == thread_ || other.segments.empty() || other.segments.front().start_ns >= t_ ||
          other.segments.back().end_ns <= best_end)
        continue;  // nothing of that thread inside the gap
      const TimeNs end = LastBusyEnd(other, t_);
      if (end > best_end) best_end = end, best = &other;
    }
    if (best == nullptr) {
      Add(CriticalPathKind::kCpuIdle, Span(seg.start_ns, t_), StringTable::kEmpty, false);
      t_ = seg.start_ns;
      next_segment_ = previous;
      return true;
    }
    Add(CriticalPathKind::kCpuIdle, Span(best_end, t_), StringTable::kEmpty, false);
    thread_ = best;
    t_ = best_end;
    return true;
  }

  // End (cut at `until`) of the last non-idle segment of `thread` starting before `until`.
  static TimeNs LastBusyEnd(const CpuThreadSegments& thread, TimeNs until) {
    for (int64_t i = thread.SegmentBefore(until); i >= 0; --i) {
      const CpuSegment& s = thread.segments[i];
      if (s.kind != CpuSegmentKind::kIdle) return std::min(s.end_ns, until);
    }
    return INT64_MIN;
  }

  const CriticalPathGraph& graph_;
  Interval window_;
  CriticalPathWindow* out_;
  NameTimes* names_;
  static constexpr int64_t kNoHint = -2;
  int64_t next_segment_ = kNoHint;  // the thread's segment before t_, when known
  int64_t budget_ = 0;
  bool on_gpu_ = false;
  int32_t gpu_ = -1;
  const CpuThreadSegments* thread_ = nullptr;
  TimeNs t_ = 0;
};

// For each step (sorted by start), the GPU event launched inside its CPU range that ends last.
std::vector<int32_t> LastEventPerStep(const CriticalPathGraph& graph, const std::vector<StepAnnotation>& steps) {
  std::vector<int32_t> last(steps.size(), -1);
  const auto& events = graph.gpu_events();
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].launch_call < 0) continue;
    const TimeNs launched = graph.profile().runtime_calls[events[i].launch_call].start_ns;
    auto it = std::upper_bound(steps.begin(), steps.end(), launched,
                               [](TimeNs t, const StepAnnotation& s) { return t < s.start_ns; });
    if (it == steps.begin()) continue;
    const size_t s = static_cast<size_t>(it - steps.begin()) - 1;
    if (launched >= steps[s].end_ns()) continue;
    if (last[s] < 0 || events[i].end_ns > events[last[s]].end_ns) last[s] = static_cast<int32_t>(i);
  }
  return last;
}

CriticalPathWindow WalkStep(const CriticalPathGraph& graph, const StepAnnotation& step, int32_t last_event,
                            NameTimes* names, bool* truncated) {
  CriticalPathWindow w;
  w.step_number = step.step_number;
  const TimeNs gpu_end = last_event >= 0 ? graph.gpu_events()[last_event].end_ns : INT64_MIN;
  w.window = Interval{step.start_ns, std::max(step.end_ns(), gpu_end)};
  PathWalker walker(graph, w.window, &w, names);
  const CpuThreadSegments* thread = graph.ThreadOf(-1, step.tid);
  bool ok = true;
  if (gpu_end > step.end_ns() || (thread == nullptr && last_event >= 0)) {
    ok = walker.FromGpu(last_event, gpu_end);
  } else if (thread != nullptr) {
    ok = walker.FromCpu(thread, step.end_ns());
  } else {  // neither the step's thread nor a GPU event of it is in the trace
    w.by_kind[Slot(CriticalPathKind::kUnattributed)] = w.window.length();
  }
  if (!ok) *truncated = true;
  return w;
}

CriticalPathWindow WalkWholeTrace(const CriticalPathGraph& graph, NameTimes* names, bool* truncated) {
  CriticalPathWindow w;
  const int32_t last = graph.LastGpuEvent();
  TimeNs start = INT64_MAX;
  for (const PathGpuEvent& e : graph.gpu_events()) start = std::min(start, e.start_ns);
  for (const CpuThreadSegments& t : graph.threads())
    if (!t.segments.empty()) start = std::min(start, t.segments.front().start_ns);
  w.window = Interval{start, graph.gpu_events()[last].end_ns};
  PathWalker walker(graph, w.window, &w, names);
  if (!walker.FromGpu(last, w.window.end_ns)) *truncated = true;
  return w;
}

std::vector<CriticalPathItem> TopItems(const Profile& profile, const NameTimes& names, size_t top_n) {
  std::vector<CriticalPathItem> items;
  items.reserve(names.size());
  for (const auto& [key, value] : names) {
    if (value.first <= 0) continue;
    CriticalPathItem item;
    item.kind = static_cast<CriticalPathKind>(key >> 32);
    item.name = std::string(profile.Name(static_cast<StringId>(key & 0xffffffffu)));
    item.time_ns = value.first;
    item.count = value.second;
    items.push_back(std::move(item));
  }
  std::sort(items.begin(), items.end(), [](const CriticalPathItem& a, const CriticalPathItem& b) {
    if (a.time_ns != b.time_ns) return a.time_ns > b.time_ns;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.name < b.name;
  });
  if (items.size() > top_n) items.resize(top_n);
  return items;
}

TimeNs Sum(const std::array<TimeNs, kCriticalPathKinds>& by_kind) {
  TimeNs total = 0;
  for (TimeNs v : by_kind) total += v;
  return total;
}

}  // namespace

std::string_view CriticalPathKindName(CriticalPathKind kind) { return kKindNames[Slot(kind)]; }

std::string_view CriticalPathBoundBy(CriticalPathKind kind) {
  switch (kind) {
    case CriticalPathKind::kCpuOperator:
    case CriticalPathKind::kCpuLaunch:
    case CriticalPathKind::kCpuRuntime:
    case CriticalPathKind::kCpuSync:
    case CriticalPathKind::kCpuIdle:
      return "cpu";
    case CriticalPathKind::kLaunchDelay:
      return "launch_overhead";
    case CriticalPathKind::kGpuKernelGap:
      return "kernel_kernel_overhead";
    case CriticalPathKind::kGpuCompute:
    case CriticalPathKind::kGpuCommunication:
    case CriticalPathKind::kGpuMemcpy:
      return "gpu";
    case CriticalPathKind::kUnattributed:
      break;
  }
  return "other";
}

TimeNs CriticalPathWindow::total_ns() const { return Sum(by_kind); }
double CriticalPathWindow::pct(CriticalPathKind kind) const {
  const TimeNs total = total_ns();
  return total > 0 ? 100.0 * static_cast<double>(by_kind[Slot(kind)]) / static_cast<double>(total) : 0;
}
TimeNs CriticalPathReport::total_ns() const { return Sum(by_kind); }
double CriticalPathReport::pct(CriticalPathKind kind) const {
  const TimeNs total = total_ns();
  return total > 0 ? 100.0 * static_cast<double>(by_kind[Slot(kind)]) / static_cast<double>(total) : 0;
}
CriticalPathKind CriticalPathReport::dominant() const {
  return static_cast<CriticalPathKind>(std::max_element(by_kind.begin(), by_kind.end()) - by_kind.begin());
}

CriticalPathReport AnalyzeCriticalPath(const Profile& profile, const CriticalPathOptions& options) {
  return AnalyzeCriticalPath(profile, ClassifyCommunication(profile), options);
}

CriticalPathReport AnalyzeCriticalPath(const Profile& profile, const CommunicationKernels& communication,
                                       const CriticalPathOptions& options) {
  CriticalPathReport report;
  if (!profile.metadata.kernel_timestamps_valid) return report;
  CriticalPathGraph graph(profile, communication);
  if (graph.gpu_events().empty() || graph.threads().empty()) return report;
  NameTimes names;
  std::vector<StepAnnotation> steps = profile.steps;
  std::sort(steps.begin(), steps.end(),
            [](const StepAnnotation& a, const StepAnnotation& b) { return a.start_ns < b.start_ns; });
  if (steps.empty()) {
    report.windows.push_back(WalkWholeTrace(graph, &names, &report.truncated));
  } else {
    const std::vector<int32_t> last = LastEventPerStep(graph, steps);
    for (size_t s = 0; s < steps.size(); ++s)
      report.windows.push_back(WalkStep(graph, steps[s], last[s], &names, &report.truncated));
  }
  for (const CriticalPathWindow& w : report.windows)
    for (size_t k = 0; k < kCriticalPathKinds; ++k) report.by_kind[k] += w.by_kind[k];
  report.top = TopItems(profile, names, options.top_n);
  return report;
}

}  // namespace kraken
