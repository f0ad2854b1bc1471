#include "analysis/launch_queue.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kraken {
namespace {

struct QueueStep {
  TimeNs time_ns;
  int delta;  // +1 enqueue, -1 start
};

// The GPU operations of the profile by correlation id: (device, stream, start).
struct GpuStart {
  int64_t correlation_id;
  int32_t device;
  int64_t stream;
  TimeNs start_ns;
};

std::vector<GpuStart> GpuStartsByCorrelation(const Profile& profile) {
  std::vector<GpuStart> out;
  out.reserve(profile.kernels.size() + profile.memory_ops.size());
  for (const Kernel& k : profile.kernels)
    if (k.correlation_id >= 0) out.push_back({k.correlation_id, k.device, k.stream, k.start_ns});
  for (const MemoryOp& m : profile.memory_ops)
    if (m.correlation_id >= 0) out.push_back({m.correlation_id, m.device, m.stream, m.start_ns});
  std::sort(out.begin(), out.end(), [](const GpuStart& a, const GpuStart& b) { return a.correlation_id < b.correlation_id; });
  return out;
}

// At most `max_points` points: the maximum of each of `max_points` equal time bins.
std::vector<QueuePoint> Decimate(std::vector<QueuePoint> points, size_t max_points) {
  if (max_points == 0 || points.size() <= max_points) return points;
  TimeNs t0 = points.front().time_ns, t1 = points.back().time_ns;
  double bin = static_cast<double>(t1 - t0 + 1) / static_cast<double>(max_points);
  std::vector<QueuePoint> out;
  for (const QueuePoint& p : points) {
    TimeNs bin_start = t0 + static_cast<TimeNs>(static_cast<double>(static_cast<size_t>((p.time_ns - t0) / bin)) * bin);
    if (out.empty() || out.back().time_ns != bin_start) out.push_back({bin_start, p.length});
    else out.back().length = std::max(out.back().length, p.length);
  }
  return out;
}

StreamQueue Measure(std::vector<QueueStep> steps, const LaunchQueueOptions& options) {
  std::sort(steps.begin(), steps.end(), [](const QueueStep& a, const QueueStep& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.delta > b.delta;  // enqueue first at a tie
  });
  StreamQueue q;
  std::vector<QueuePoint> points;
  int64_t length = 0;
  double weighted = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    length += steps[i].delta;
    q.launches += steps[i].delta > 0;
    if (length > q.max_length) {
      q.max_length = length;
      q.max_at_ns = steps[i].time_ns;
    }
    bool last_at_time = i + 1 == steps.size() || steps[i + 1].time_ns != steps[i].time_ns;
    if (!last_at_time) continue;
    points.push_back({steps[i].time_ns, length});
    if (i + 1 < steps.size()) {
      TimeNs held = steps[i + 1].time_ns - steps[i].time_ns;
      weighted += static_cast<double>(length) * static_cast<double>(held);
      if (length >= options.max_queue_length) q.blocked_ns += held;
    }
  }
  TimeNs span = steps.empty() ? 0 : steps.back().time_ns - steps.front().time_ns;
  q.mean_length = span > 0 ? weighted / static_cast<double>(span) : 0;
  q.series = Decimate(std::move(points), options.max_points);
  return q;
}

}  // namespace

LaunchQueues AnalyzeLaunchQueues(const Profile& profile, const LaunchQueueOptions& options) {
  LaunchQueues out;
  if (!profile.metadata.kernel_timestamps_valid) return out;
  const std::vector<GpuStart> starts = GpuStartsByCorrelation(profile);
  std::map<std::pair<int32_t, int64_t>, std::vector<QueueStep>> by_stream;
  for (const RuntimeCall& call : profile.runtime_calls) {
    if (call.correlation_id < 0) continue;
    auto it = std::lower_bound(starts.begin(), starts.end(), call.correlation_id,
                               [](const GpuStart& s, int64_t id) { return s.correlation_id < id; });
    // One enqueue per GPU operation the call launched (a graph launch may start several;
    // HTA joins on the id too, so each of them counts).
    for (; it != starts.end() && it->correlation_id == call.correlation_id; ++it) {
      auto& steps = by_stream[{it->device, it->stream}];
      steps.push_back({call.start_ns, +1});
      steps.push_back({it->start_ns, -1});
    }
  }
  for (auto& [key, steps] : by_stream) {
    StreamQueue q = Measure(std::move(steps), options);
    q.device = key.first;
    q.stream = key.second;
    out.blocked_ns += q.blocked_ns;
    out.streams.push_back(std::move(q));
  }
  return out;
}

}  // namespace kraken
