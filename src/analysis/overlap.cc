#include "analysis/overlap.h"

#include "analysis/gpu_event_sets.h"

namespace kraken {

TimeNs OverlapBreakdown::Duration(const std::string& name) const {
  for (const OverlapCategory& c : categories)
    if (c.name == name) return c.duration_ns;
  return 0;
}

OverlapBreakdown AnalyzeOverlap(const Profile& profile, bool linked_only) {
  OverlapBreakdown out;
  if (!profile.metadata.kernel_timestamps_valid) return out;
  std::vector<GpuEvent> events = CollectGpuEvents(profile, linked_only);
  if (events.empty()) return out;
  out.window = SpanOf(events);
  std::vector<Interval> by_class[3];
  for (const GpuEvent& e : events) by_class[static_cast<int>(e.event_class)].push_back({e.start_ns, e.end_ns});
  const IntervalSet compute = IntervalSet::Union(std::move(by_class[static_cast<int>(GpuEventClass::kCompute)]));
  const IntervalSet comm = IntervalSet::Union(std::move(by_class[static_cast<int>(GpuEventClass::kCommunication)]));
  const IntervalSet memcpy = IntervalSet::Union(std::move(by_class[static_cast<int>(GpuEventClass::kMemcpy)]));
  const IntervalSet cc = compute.Intersect(comm);
  const IntervalSet all3 = cc.Intersect(memcpy);
  auto len = [](const IntervalSet& s) { return s.TotalLength(); };
  const TimeNs compute_comm = len(cc) - len(all3);
  const TimeNs compute_memcpy = len(compute.Intersect(memcpy)) - len(all3);
  const TimeNs comm_memcpy = len(comm.Intersect(memcpy)) - len(all3);
  const TimeNs busy = len(compute.Unite(comm).Unite(memcpy));
  out.categories = {
      {"compute_only", len(compute) - compute_comm - compute_memcpy - len(all3)},
      {"comm_only", len(comm) - compute_comm - comm_memcpy - len(all3)},
      {"memcpy_only", len(memcpy) - compute_memcpy - comm_memcpy - len(all3)},
      {"compute_comm", compute_comm},
      {"compute_memcpy", compute_memcpy},
      {"comm_memcpy", comm_memcpy},
      {"compute_comm_memcpy", len(all3)},
      {"idle", out.window.length() - busy},
  };
  out.comm_ns = len(comm);
  out.comm_overlapped_ns = len(cc);
  return out;
}

}  // namespace kraken
