#include "analysis/memory_timeline.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kraken {
namespace {

// Allocated and reserved samples of one device merged on time (the importer writes both
// from the same [memory] event, so the times agree; a missing one carries over).
std::vector<MemoryPoint> MergedPoints(const Series* allocated, const Series* reserved) {
  std::map<TimeNs, std::pair<double, double>> at;  // -1: not sampled at that time
  if (allocated != nullptr)
    for (const Sample& s : allocated->samples) at.try_emplace(s.time_ns, -1.0, -1.0).first->second.first = s.value;
  if (reserved != nullptr)
    for (const Sample& s : reserved->samples) at.try_emplace(s.time_ns, -1.0, -1.0).first->second.second = s.value;
  std::vector<MemoryPoint> out;
  double a = 0, r = 0;
  for (const auto& [t, values] : at) {
    if (values.first >= 0) a = values.first;
    if (values.second >= 0) r = values.second;
    out.push_back({t, a, r});
  }
  return out;
}

// The innermost operator (latest start among those covering `t`) and the step at `t`.
void PlaceOf(const Profile& profile, TimeNs t, std::string* op, int64_t* step) {
  const CpuOp* best = nullptr;
  for (const CpuOp& o : profile.cpu_ops) {
    if (o.start_ns > t) break;  // sorted by start
    if (o.category != CpuOpCategory::kOperator || o.end_ns() < t) continue;
    if (best == nullptr || o.start_ns >= best->start_ns) best = &o;
  }
  if (best != nullptr) *op = std::string(profile.Name(best->name));
  for (const StepAnnotation& s : profile.steps)
    if (s.start_ns <= t && t <= s.end_ns()) *step = s.step_number;
}

std::vector<MemoryPoint> Decimate(const std::vector<MemoryPoint>& points, size_t max_points) {
  if (max_points == 0 || points.size() <= max_points) return points;
  std::vector<MemoryPoint> out;
  size_t per_bin = (points.size() + max_points - 1) / max_points;
  for (size_t i = 0; i < points.size(); i += per_bin) {
    size_t end = std::min(points.size(), i + per_bin);
    auto peak = std::max_element(points.begin() + static_cast<std::ptrdiff_t>(i),
                                 points.begin() + static_cast<std::ptrdiff_t>(end),
                                 [](const MemoryPoint& a, const MemoryPoint& b) { return a.allocated_bytes < b.allocated_bytes; });
    out.push_back(*peak);
  }
  return out;
}

DeviceMemoryTimeline Measure(const Profile& profile, int32_t device, const std::vector<MemoryPoint>& points,
                             size_t max_points) {
  DeviceMemoryTimeline d;
  d.device = device;
  d.samples = static_cast<int64_t>(points.size());
  double weighted = 0;
  TimeNs weighted_span = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const MemoryPoint& p = points[i];
    if (p.allocated_bytes > d.peak_allocated_bytes || i == 0) {
      d.peak_allocated_bytes = p.allocated_bytes;
      d.peak_allocated_at_ns = p.time_ns;
      d.fragmentation_at_peak_bytes = p.reserved_bytes - p.allocated_bytes;
    }
    if (p.reserved_bytes > d.peak_reserved_bytes || i == 0) {
      d.peak_reserved_bytes = p.reserved_bytes;
      d.peak_reserved_at_ns = p.time_ns;
    }
    d.max_fragmentation_bytes = std::max(d.max_fragmentation_bytes, p.reserved_bytes - p.allocated_bytes);
    if (i + 1 < points.size() && p.reserved_bytes > 0) {
      TimeNs held = points[i + 1].time_ns - p.time_ns;
      weighted += (p.reserved_bytes - p.allocated_bytes) / p.reserved_bytes * static_cast<double>(held);
      weighted_span += held;
    }
  }
  d.mean_fragmentation_pct = weighted_span > 0 ? 100.0 * weighted / static_cast<double>(weighted_span) : 0;
  PlaceOf(profile, d.peak_allocated_at_ns, &d.peak_allocated_op, &d.peak_allocated_step);
  d.series = Decimate(points, max_points);
  return d;
}

}  // namespace

std::vector<DeviceMemoryTimeline> AnalyzeMemoryTimeline(const Profile& profile, const MemoryTimelineOptions& options) {
  std::map<int32_t, std::pair<const Series*, const Series*>> by_device;
  for (const Series& s : profile.series) {
    if (s.metric == Metric::kAllocatorAllocatedBytes) by_device[s.entity.gpu_index].first = &s;
    if (s.metric == Metric::kAllocatorReservedBytes) by_device[s.entity.gpu_index].second = &s;
  }
  std::vector<DeviceMemoryTimeline> out;
  for (const auto& [device, series] : by_device) {
    std::vector<MemoryPoint> points = MergedPoints(series.first, series.second);
    if (!points.empty()) out.push_back(Measure(profile, device, points, options.max_points));
  }
  return out;
}

}  // namespace kraken
