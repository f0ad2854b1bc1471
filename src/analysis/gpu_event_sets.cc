#include "analysis/gpu_event_sets.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "analysis/communication.h"
#include "base/text.h"

namespace kraken {
namespace {

// ROCm 7.1 and older record copies done by the runtime's own copy kernels as cat
// "kernel"; TraceLens counts them as memcpy so ROCm versions compare like for like.
bool IsRocmCopyKernelName(std::string_view name) {
  if (EndsWith(name, ".kd")) name.remove_suffix(3);
  static constexpr std::array<std::string_view, 7> kNames = {
      "MEMORY_COPY_HOST_TO_DEVICE",     "MEMORY_COPY_DEVICE_TO_HOST",  "MEMORY_COPY_DEVICE_TO_DEVICE",
      "__amd_rocclr_copyBuffer",        "__amd_rocclr_copyBufferRect", "__amd_rocclr_copyBufferAligned",
      "__amd_rocclr_copyBufferRectAligned"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

// End of an event, saturating instead of overflowing on absurd durations.
TimeNs EndOf(TimeNs start_ns, TimeNs duration_ns) {
  if (duration_ns <= 0) return start_ns;
  if (start_ns > 0 && duration_ns > INT64_MAX - start_ns) return INT64_MAX;
  return start_ns + duration_ns;
}

}  // namespace

std::vector<int64_t> RuntimeCorrelationIds(const Profile& profile) {
  std::vector<int64_t> ids;
  ids.reserve(profile.runtime_calls.size());
  for (const RuntimeCall& call : profile.runtime_calls) {
    if (call.correlation_id >= 0) ids.push_back(call.correlation_id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<GpuEvent> CollectGpuEvents(const Profile& profile, bool linked_only) {
  std::vector<int64_t> linked_ids;
  if (linked_only) linked_ids = RuntimeCorrelationIds(profile);
  auto keep = [&](int64_t correlation_id) {
    return !linked_only || std::binary_search(linked_ids.begin(), linked_ids.end(), correlation_id);
  };

  const CommunicationKernels communication = ClassifyCommunication(profile);
  // Kernel names repeat; look each distinct name up once (-1 = not yet looked up).
  std::vector<int8_t> rocm_copy_name(profile.strings.size(), -1);
  std::vector<GpuEvent> events;
  events.reserve(profile.kernels.size() + profile.memory_ops.size());
  for (size_t i = 0; i < profile.kernels.size(); ++i) {
    const Kernel& k = profile.kernels[i];
    if (!keep(k.correlation_id)) continue;
    bool rocm_copy = false;
    if (k.name < rocm_copy_name.size()) {
      if (rocm_copy_name[k.name] < 0) rocm_copy_name[k.name] = IsRocmCopyKernelName(profile.Name(k.name)) ? 1 : 0;
      rocm_copy = rocm_copy_name[k.name] == 1;
    }
    GpuEventClass event_class = communication.is_communication(i) ? GpuEventClass::kCommunication
                                : rocm_copy                        ? GpuEventClass::kMemcpy
                                                                   : GpuEventClass::kCompute;
    events.push_back({k.start_ns, EndOf(k.start_ns, k.duration_ns), k.stream, k.correlation_id,
                      k.device, event_class});
  }
  for (const MemoryOp& m : profile.memory_ops) {
    if (!keep(m.correlation_id)) continue;
    // Memset runs on the compute engines; TraceLens counts it as computation too.
    GpuEventClass event_class = m.kind == MemoryOpKind::kMemcpy ? GpuEventClass::kMemcpy : GpuEventClass::kCompute;
    events.push_back({m.start_ns, EndOf(m.start_ns, m.duration_ns), m.stream, m.correlation_id,
                      m.device, event_class});
  }
  std::sort(events.begin(), events.end(),
            [](const GpuEvent& a, const GpuEvent& b) { return a.start_ns < b.start_ns; });
  return events;
}

GpuClassSets::GpuClassSets(std::span<const GpuEvent> events) {
  std::vector<Interval> compute, comm, memcpy;
  for (const GpuEvent& e : events) {
    Interval interval{e.start_ns, e.end_ns};
    switch (e.event_class) {
      case GpuEventClass::kCompute: compute.push_back(interval); break;
      case GpuEventClass::kCommunication: comm.push_back(interval); break;
      case GpuEventClass::kMemcpy: memcpy.push_back(interval); break;
    }
    if (e.end_ns > e.start_ns) {
      starts_.push_back(e.start_ns);
      ends_.push_back(e.end_ns);
    } else {
      instants_.push_back(e.start_ns);
    }
  }
  compute_ = IntervalSet::Union(std::move(compute));
  comm_ = IntervalSet::Union(std::move(comm));
  memcpy_ = IntervalSet::Union(std::move(memcpy));
  busy_ = compute_.Unite(comm_).Unite(memcpy_);
  exposed_comm_ = comm_.Minus(compute_);
  exposed_memcpy_ = memcpy_.Minus(compute_).Minus(comm_);
  std::sort(starts_.begin(), starts_.end());
  std::sort(ends_.begin(), ends_.end());
  std::sort(instants_.begin(), instants_.end());
}

int64_t GpuClassSets::CountEvents(const Interval& window, bool closed_end) const {
  int64_t count = 0;
  if (window.end_ns > window.start_ns) {
    // Events with a duration overlap [s, e) when start < e and end > s. Every event
    // with end <= s also has start < e, so the difference of two counts is exact.
    auto started_before_end = std::lower_bound(starts_.begin(), starts_.end(), window.end_ns) - starts_.begin();
    auto ended_by_start = std::upper_bound(ends_.begin(), ends_.end(), window.start_ns) - ends_.begin();
    count += started_before_end - ended_by_start;
  }
  auto first = std::lower_bound(instants_.begin(), instants_.end(), window.start_ns);
  auto last = closed_end ? std::upper_bound(instants_.begin(), instants_.end(), window.end_ns)
                         : std::lower_bound(instants_.begin(), instants_.end(), window.end_ns);
  if (last > first) count += last - first;
  return count;
}

TimelineBreakdown GpuClassSets::Measure(const Interval& window, bool closed_end) const {
  TimelineBreakdown b;
  b.window = window;
  b.total_ns = window.length();
  b.busy_ns = busy_.LengthWithin(window);
  b.idle_ns = b.total_ns - b.busy_ns;
  b.compute_ns = compute_.LengthWithin(window);
  b.comm_ns = comm_.LengthWithin(window);
  b.exposed_comm_ns = exposed_comm_.LengthWithin(window);
  b.memcpy_ns = memcpy_.LengthWithin(window);
  b.exposed_memcpy_ns = exposed_memcpy_.LengthWithin(window);
  b.gpu_events = CountEvents(window, closed_end);
  return b;
}

Interval SpanOf(std::span<const GpuEvent> events) {
  if (events.empty()) return {0, 0};
  Interval span{events.front().start_ns, events.front().end_ns};
  for (const GpuEvent& e : events) {
    span.start_ns = std::min(span.start_ns, e.start_ns);
    span.end_ns = std::max(span.end_ns, e.end_ns);
  }
  return span;
}

}  // namespace kraken
