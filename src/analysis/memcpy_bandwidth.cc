#include "analysis/memcpy_bandwidth.h"

#include <algorithm>
#include <map>
#include <utility>

namespace kraken {
namespace {

const char* KindOf(const MemoryOp& m) {
  if (m.kind == MemoryOpKind::kMemset) return "memset";
  switch (m.direction) {
    case CopyDirection::kHostToDevice: return "h2d";
    case CopyDirection::kDeviceToHost: return "d2h";
    case CopyDirection::kDeviceToDevice: return "d2d";
    case CopyDirection::kPeerToPeer: return "p2p";
    case CopyDirection::kHostToHost: return "h2h";
    default: return "unknown";
  }
}

// bytes per ns = GB/s.
double Rate(const MemoryOp& m) { return static_cast<double>(m.bytes) / static_cast<double>(m.duration_ns); }

std::vector<BandwidthPoint> BandwidthSeries(const std::vector<const MemoryOp*>& ops, size_t max_points, double* peak) {
  std::vector<std::pair<TimeNs, double>> edges;
  for (const MemoryOp* m : ops) {
    if (m->bytes < 0 || m->duration_ns <= 0) continue;
    edges.push_back({m->start_ns, Rate(*m)});
    edges.push_back({m->end_ns(), -Rate(*m)});
  }
  std::sort(edges.begin(), edges.end());
  std::vector<BandwidthPoint> points;
  double level = 0;
  for (size_t i = 0; i < edges.size(); ++i) {
    level += edges[i].second;
    if (i + 1 < edges.size() && edges[i + 1].first == edges[i].first) continue;
    double value = std::max(0.0, level);  // rounding can leave -1e-12
    *peak = std::max(*peak, value);
    points.push_back({edges[i].first, value});
  }
  if (max_points == 0 || points.size() <= max_points) return points;
  // Bin maxima, so a short burst stays visible.
  TimeNs t0 = points.front().time_ns;
  double bin = static_cast<double>(points.back().time_ns - t0 + 1) / static_cast<double>(max_points);
  std::vector<BandwidthPoint> out;
  for (const BandwidthPoint& p : points) {
    TimeNs start = t0 + static_cast<TimeNs>(static_cast<double>(static_cast<size_t>((p.time_ns - t0) / bin)) * bin);
    if (out.empty() || out.back().time_ns != start) out.push_back({start, p.gb_per_s});
    else out.back().gb_per_s = std::max(out.back().gb_per_s, p.gb_per_s);
  }
  return out;
}

}  // namespace

std::vector<CopyKindBandwidth> AnalyzeMemcpyBandwidth(const Profile& profile, const MemcpyBandwidthOptions& options) {
  std::map<std::string, std::vector<const MemoryOp*>> by_kind;
  for (const MemoryOp& m : profile.memory_ops) by_kind[KindOf(m)].push_back(&m);
  std::vector<CopyKindBandwidth> out;
  for (const auto& [kind, ops] : by_kind) {
    CopyKindBandwidth b;
    b.kind = kind;
    std::vector<double> rates;
    TimeNs timed_ns = 0;
    int64_t timed_bytes = 0;
    for (const MemoryOp* m : ops) {
      ++b.operations;
      b.busy_ns += std::max<TimeNs>(0, m->duration_ns);
      if (m->bytes < 0) continue;
      b.bytes += m->bytes;
      if (m->duration_ns <= 0) continue;
      rates.push_back(Rate(*m));
      timed_ns += m->duration_ns;
      timed_bytes += m->bytes;
    }
    if (timed_ns > 0) b.mean_gb_per_s = static_cast<double>(timed_bytes) / static_cast<double>(timed_ns);
    if (!rates.empty()) {
      std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
      b.p50_gb_per_s = rates[rates.size() / 2];
    }
    b.series = BandwidthSeries(ops, options.max_points, &b.max_gb_per_s);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace kraken
