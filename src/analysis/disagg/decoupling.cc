#include "analysis/disagg/decoupling.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace kraken::disagg {
namespace {

bool SameEntity(const SeriesEntity& e, const WorkloadDemand& d) {
  if (e.pid >= 0 || e.gpu_index != d.gpu_index || e.gpu_instance_id != d.gpu_instance_id) return false;
  auto phase = e.labels.find("phase");
  return (phase == e.labels.end() ? std::string() : phase->second) == d.phase;
}

// The series of `metric` with the most samples (at least 2) that `wanted` accepts, or nullptr.
template <typename Wanted>
const Series* LongestSeries(const Profile& profile, Metric metric, const Wanted& wanted) {
  const Series* best = nullptr;
  for (const Series& s : profile.series) {
    if (s.metric != metric || s.samples.size() < 2 || !wanted(s)) continue;
    if (best == nullptr || s.samples.size() > best->samples.size()) best = &s;
  }
  return best;
}

// The memory-over-time series for the demand, or nullptr. A trace's: the framework
// allocator's, else the CUDA allocations of kraken's CUPTI tracer (as demand.cc ranks them);
// a sampled workload's: the framebuffer used by its own GPU (or MIG instance and phase).
const Series* MemorySeries(const Profile& profile, const WorkloadDemand& d) {
  if (d.source_kind != "trace") {
    return LongestSeries(profile, Metric::kFbUsedBytes, [&](const Series& s) { return SameEntity(s.entity, d); });
  }
  auto any = [](const Series&) { return true; };
  const Series* allocator = LongestSeries(profile, Metric::kAllocatorAllocatedBytes, any);
  return allocator != nullptr ? allocator : LongestSeries(profile, Metric::kCudaAllocatedBytes, any);
}

// Pearson r between busy and memory over the demand's bins, memory held at its last sample
// before each bin's start (bins before the first sample are left out).
void CorrelateWithBusy(const Series& memory, const WorkloadDemand& demand, Decoupling& d) {
  std::vector<std::pair<double, double>> pairs;  // (busy, memory)
  size_t next = 0;
  double held = 0;
  bool have = false;
  for (size_t i = 0; i < demand.busy_bins.size(); ++i) {
    double t = static_cast<double>(demand.bins_start_ns) + static_cast<double>(i) * demand.bin_s * 1e9;
    while (next < memory.samples.size() && static_cast<double>(memory.samples[next].time_ns) <= t) {
      held = memory.samples[next].value;
      have = true;
      ++next;
    }
    if (have) pairs.push_back({demand.busy_bins[i], held});
  }
  d.points = static_cast<int64_t>(pairs.size());
  if (d.points < 3) return;
  double mb = 0, mm = 0;
  for (auto [b, m] : pairs) {
    mb += b;
    mm += m;
  }
  mb /= static_cast<double>(pairs.size());
  mm /= static_cast<double>(pairs.size());
  double sbb = 0, smm = 0, sbm = 0;
  for (auto [b, m] : pairs) {
    sbb += (b - mb) * (b - mb);
    smm += (m - mm) * (m - mm);
    sbm += (b - mb) * (m - mm);
  }
  d.correlation_measured = true;
  // A series whose spread is below 1e-6 of its level (memory) or 1e-9 (busy) is flat.
  double n = static_cast<double>(pairs.size());
  d.memory_constant = smm <= 1e-12 * mm * mm * n;
  d.busy_constant = sbb <= 1e-18 * n;
  d.correlation = d.memory_constant || d.busy_constant ? 0 : sbm / std::sqrt(sbb * smm);
  d.independence = 1 - std::abs(d.correlation);
}

}  // namespace

Decoupling AnalyzeDecoupling(const Profile& profile, const WorkloadDemand& demand, const GpuNeed& need) {
  Decoupling d;
  if (need.compute_measured && need.memory_measured && need.device_memory_bytes > 0) {
    d.memory_share = need.memory_share;
    d.compute_share = need.compute_mean;
    double larger = std::max(d.memory_share, d.compute_share);
    // A workload that uses almost nothing of either has no proportion to speak of.
    if (larger >= kMinShareForImbalance) {
      d.imbalance_measured = true;
      d.imbalance = std::abs(d.memory_share - d.compute_share) / larger;
    }
  }
  const Series* memory = MemorySeries(profile, demand);
  if (memory != nullptr && demand.busy_bins.size() >= 3 && demand.bin_s > 0) {
    d.memory_series = memory->source_name;
    CorrelateWithBusy(*memory, demand, d);
  }
  int parts = (d.imbalance_measured ? 1 : 0) + (d.correlation_measured ? 1 : 0);
  d.measured = parts > 0;
  if (d.measured)
    d.score = ((d.imbalance_measured ? d.imbalance : 0) + (d.correlation_measured ? d.independence : 0)) / parts;
  return d;
}

Explanation ExplainDecoupling(const Decoupling& d) {
  Explanation e;
  if (d.imbalance_measured) {
    e.Term("memory share", d.memory_share, "ratio", "peak memory / device memory");
    e.Term("compute share", d.compute_share, "ratio", "mean compute need (share of the GPU's SMs)");
    e.Term("imbalance", d.imbalance, "ratio", "|memory share - compute share| / max(memory share, compute share)");
  } else {
    e.Assume("imbalance not measured: needs a memory peak, a compute need, the device's memory, and one of the "
             "shares at 1% or more");
  }
  if (d.correlation_measured) {
    e.Input("memory series", static_cast<double>(d.points), "points", d.memory_series + " held at its last value per busy bin");
    e.Term("correlation", d.correlation, "", d.memory_constant ? "memory constant over the window: r = 0"
                                             : d.busy_constant ? "busy constant over the window: r = 0"
                                                               : "Pearson r(memory, busy) over the bins");
    e.Term("independence", d.independence, "ratio", "1 - |r|");
  } else {
    e.Assume("no memory series over time (allocator, CUDA allocations or framebuffer) lines up with the busy bins: "
             "independence not measured");
  }
  if (d.measured) e.Term("decoupling", d.score, "ratio", "mean of the measured parts (imbalance, independence)");
  return e;
}

}  // namespace kraken::disagg
