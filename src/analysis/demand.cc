#include "analysis/demand.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/distribution.h"
#include "base/text_table.h"

namespace kraken {
namespace {

DemandStat StatOf(std::vector<double> values, std::string basis) {
  DemandStat stat;
  if (values.empty()) return stat;
  std::sort(values.begin(), values.end());
  Distribution d = Summarize(values);
  stat.measured = true;
  stat.mean = d.mean;
  stat.p95 = QuantileSorted(values, 0.95);
  stat.max = d.max;
  stat.basis = std::move(basis);
  return stat;
}

DemandStat Constant(double value, std::string basis) {
  DemandStat stat;
  stat.measured = true;
  stat.mean = stat.p95 = stat.max = value;
  stat.basis = std::move(basis);
  return stat;
}

int64_t GridBlocks(const Dim3& grid) {
  if (grid[0] <= 0) return 0;
  return static_cast<int64_t>(grid[0]) * std::max(grid[1], 1) * std::max(grid[2], 1);
}

// Blocks of `k` resident on one SM at once, limited by registers (allocated per warp),
// shared memory, threads and the 32 block slots of Volta..Hopper SMs; 0 when the launch or
// the device lacks the figures.
int64_t ResidentBlocksPerSm(const Kernel& k, const DeviceInfo* device) {
  if (device == nullptr || k.block[0] <= 0 || k.registers_per_thread < 0 || k.shared_memory_bytes < 0 ||
      device->registers_per_sm <= 0 || device->shared_memory_per_sm_bytes <= 0 || device->max_threads_per_sm <= 0)
    return 0;
  const int64_t threads = static_cast<int64_t>(k.block[0]) * std::max(k.block[1], 1) * std::max(k.block[2], 1);
  const int64_t warp_threads = (threads + 31) / 32 * 32;
  int64_t fit = std::min<int64_t>(32, device->max_threads_per_sm / warp_threads);
  if (k.registers_per_thread > 0) fit = std::min<int64_t>(fit, device->registers_per_sm / (k.registers_per_thread * warp_threads));
  if (k.shared_memory_bytes > 0) fit = std::min<int64_t>(fit, device->shared_memory_per_sm_bytes / k.shared_memory_bytes);
  return fit;
}

const DeviceInfo* KernelDevice(const Profile& profile) {
  for (const DeviceInfo& device : profile.devices)
    if (device.registers_per_sm > 0 && device.shared_memory_per_sm_bytes > 0 && device.max_threads_per_sm > 0)
      return &device;
  return nullptr;
}

void FillKernelShape(const Profile& profile, const WorkloadReport& report, WorkloadDemand* d) {
  const BoundMix& mix = report.kernels.mix;
  double total = static_cast<double>(mix.total_ns());
  if (total > 0) {
    d->compute_bound_share = static_cast<double>(mix.compute_ns) / total;
    d->memory_bound_share = static_cast<double>(mix.memory_ns) / total;
    d->latency_bound_share = static_cast<double>(mix.latency_ns) / total;
  }
  d->kernel_p50_ns = report.launches.kernel_duration_ns.p50;
  d->kernel_p99_ns = report.launches.kernel_duration_ns.p99;
  double filled = 0, weight = 0, turnover = 0, hold_time = 0, hold_square = 0, coresident_time = 0;
  const DeviceInfo* device = KernelDevice(profile);
  int32_t sms = d->device_sm_count;
  std::vector<double> fill_time(kSmFillBins + 1, 0.0);
  for (const Kernel& k : profile.kernels) {
    if (k.duration_ns <= 0) continue;
    ++d->kernel_count;
    d->kernel_time_s += static_cast<double>(k.duration_ns) / 1e9;
    int64_t blocks = GridBlocks(k.grid);
    if (sms <= 0 || blocks <= 0) continue;
    double duration = static_cast<double>(k.duration_ns);
    double per_sm = static_cast<double>(blocks) / sms;
    double fill = std::min(1.0, per_sm);
    filled += fill * duration;
    weight += duration;
    turnover += duration * (duration / std::max(1.0, per_sm));
    int bin = per_sm >= 1.0 ? kSmFillBins : std::min(kSmFillBins - 1, static_cast<int>(per_sm * kSmFillBins));
    fill_time[static_cast<size_t>(bin)] += duration;
    if (per_sm >= 1.0) {  // a block for every SM: later grids wait until its last blocks are placed
      ++d->sm_hold_kernel_count;
      hold_time += duration;
      hold_square += duration * duration;
      if (ResidentBlocksPerSm(k, device) >= 2) coresident_time += duration;
    }
  }
  if (hold_time > 0) {
    d->sm_hold_residual_ns = hold_square / (2 * hold_time);
    d->sm_hold_coresident_share = coresident_time / hold_time;
  }
  if (weight > 0) {
    d->sm_fill = filled / weight;
    d->sm_turnover_ns = turnover / weight;
    d->sm_hold_time_share = hold_time / weight;
    for (double& t : fill_time) t /= weight;
    d->sm_fill_time_share = std::move(fill_time);
  }
}

// Duration-weighted mean of a measured per-kernel percentage (ncu SM% or DRAM%).
std::optional<double> KernelCounterShare(const Profile& profile, std::optional<double> KernelCounters::*field) {
  double sum = 0, weight = 0;
  for (const Kernel& k : profile.kernels) {
    if (k.counters_index < 0 || static_cast<size_t>(k.counters_index) >= profile.kernel_counters.size()) continue;
    const auto& value = profile.kernel_counters[static_cast<size_t>(k.counters_index)].*field;
    if (!value || k.duration_ns <= 0) continue;
    sum += *value / 100.0 * static_cast<double>(k.duration_ns);
    weight += static_cast<double>(k.duration_ns);
  }
  if (weight <= 0) return std::nullopt;
  return sum / weight;
}

// Syncs inside the profiler steps that had GPU work (kernels, copies, memsets) start since
// the previous sync ended, per step: warm-up syncs outside the steps are not the steady state.
double GpuSyncsPerStep(const Profile& profile) {
  if (profile.steps.empty() || profile.syncs.empty()) return 0;
  std::vector<TimeNs> gpu_starts;
  for (const Kernel& k : profile.kernels) gpu_starts.push_back(k.start_ns);
  for (const MemoryOp& m : profile.memory_ops) gpu_starts.push_back(m.start_ns);
  std::sort(gpu_starts.begin(), gpu_starts.end());
  std::vector<SyncEvent> syncs = profile.syncs;
  std::sort(syncs.begin(), syncs.end(), [](const SyncEvent& a, const SyncEvent& b) { return a.start_ns < b.start_ns; });
  std::vector<StepAnnotation> steps = profile.steps;
  std::sort(steps.begin(), steps.end(),
            [](const StepAnnotation& a, const StepAnnotation& b) { return a.start_ns < b.start_ns; });
  auto in_step = [&](TimeNs t) {  // steps do not overlap: the last one starting at or before t
    auto after = std::upper_bound(steps.begin(), steps.end(), t,
                                  [](TimeNs v, const StepAnnotation& s) { return v < s.start_ns; });
    return after != steps.begin() && t < std::prev(after)->end_ns();
  };
  TimeNs previous_end = std::numeric_limits<TimeNs>::min();
  int64_t counted = 0;
  for (const SyncEvent& s : syncs) {
    TimeNs end = s.start_ns + s.duration_ns;
    auto first = std::lower_bound(gpu_starts.begin(), gpu_starts.end(), previous_end);
    bool had_work = first != gpu_starts.end() && *first < end;
    if (had_work && in_step(s.start_ns)) ++counted;
    previous_end = end;
  }
  return static_cast<double>(counted) / static_cast<double>(profile.steps.size());
}

WorkloadDemand FromTrace(const Profile& profile, const WorkloadReport& report, const DemandOptions& options) {
  WorkloadDemand d;
  d.source_kind = "trace";
  const TimelineBreakdown& w = report.main_window();
  double span = static_cast<double>(w.total_ns);
  d.duration_s = span / 1e9;
  if (span <= 0) return d;
  // Busy fraction per bin over the window.
  double bin_ns = options.trace_bin_s > 0 ? options.trace_bin_s * 1e9 : std::max(1e6, span / 1000);
  d.bin_s = bin_ns / 1e9;
  std::vector<Interval> events;
  events.reserve(profile.kernels.size() + profile.memory_ops.size());
  for (const Kernel& k : profile.kernels) events.push_back({k.start_ns, k.end_ns()});
  for (const MemoryOp& m : profile.memory_ops) events.push_back({m.start_ns, m.end_ns()});
  const IntervalSet busy = IntervalSet::Union(std::move(events));
  std::vector<double> bins;
  for (double start = static_cast<double>(w.window.start_ns); start < static_cast<double>(w.window.end_ns); start += bin_ns) {
    Interval bin{static_cast<TimeNs>(start), static_cast<TimeNs>(std::min(start + bin_ns, static_cast<double>(w.window.end_ns)))};
    if (bin.length() <= 0) break;
    bins.push_back(static_cast<double>(busy.LengthWithin(bin)) / static_cast<double>(bin.length()));
  }
  d.busy_bins = bins;
  d.bins_start_ns = w.window.start_ns + static_cast<int64_t>(bin_ns / 2);
  d.gpu_busy = StatOf(bins, "GPU timeline: busy fraction per " + FormatFixed(d.bin_s * 1000, 1) + " ms bin");
  d.gpu_busy.mean = static_cast<double>(w.busy_ns) / span;  // exact, not the mean of unequal bins

  if (report.tb_plugin && report.tb_plugin->est_sm_efficiency_pct) {
    d.sm_active = Constant(*report.tb_plugin->est_sm_efficiency_pct / 100.0,
                           "estimated from kernels' blocks per SM (tb_plugin's SM efficiency)");
  } else {
    double sum = 0;
    for (const Kernel& k : profile.kernels)
      if (k.blocks_per_sm >= 0) sum += std::min(1.0, k.blocks_per_sm) * static_cast<double>(k.duration_ns);
    if (sum > 0) d.sm_active = Constant(std::min(1.0, sum / span), "estimated from kernels' blocks per SM");
  }
  if (report.tb_plugin && report.tb_plugin->est_achieved_occupancy_pct) {
    d.sm_occupancy = Constant(*report.tb_plugin->est_achieved_occupancy_pct / 100.0 * d.gpu_busy.mean,
                              "kernels' estimated achieved occupancy x GPU busy");
  }
  if (report.kernels.mix.tensor_core_ns > 0) {
    d.tensor_active = Constant(std::min(1.0, static_cast<double>(report.kernels.mix.tensor_core_ns) / span),
                               "upper bound: time in tensor-core kernels (by name)");
  }
  if (auto dram = KernelCounterShare(profile, &KernelCounters::dram_throughput_pct))
    d.dram_active = Constant(*dram * d.gpu_busy.mean, "kernels' measured DRAM throughput x GPU busy");
  double pcie_bytes = 0;
  bool any_bytes = false;
  for (const MemoryOp& m : profile.memory_ops) {
    if (m.kind != MemoryOpKind::kMemcpy || m.bytes < 0) continue;
    if (m.direction == CopyDirection::kHostToDevice || m.direction == CopyDirection::kDeviceToHost) {
      pcie_bytes += static_cast<double>(m.bytes);
      any_bytes = true;
    }
  }
  if (any_bytes) d.pcie_bytes_per_s = Constant(pcie_bytes / d.duration_s, "host<->device memcpy bytes / span");
  // The framework's allocator knows what it holds (its cache included); without it, the CUDA
  // allocations the tracer recorded are the program's memory, short of the CUDA context.
  if (report.peak_reserved_bytes || report.peak_allocated_bytes) {
    double peak = report.peak_reserved_bytes.value_or(*report.peak_allocated_bytes);
    d.memory_bytes = Constant(peak, report.peak_reserved_bytes ? "framework allocator: peak reserved"
                                                               : "framework allocator: peak allocated");
  } else if (report.peak_cuda_allocated_bytes) {
    d.memory_bytes = Constant(*report.peak_cuda_allocated_bytes,
                              "CUDA allocations outstanding (CUPTI memory records; CUDA context not included)");
  }
  if (w.busy_ns > 0) d.communication_share = static_cast<double>(w.comm_ns) / static_cast<double>(w.busy_ns);
  d.kernels_per_s = static_cast<double>(report.kernels.kernel_count) / d.duration_s;
  if (report.step_time_ns.count > 0) d.step_time_s = report.step_time_ns.p50 / 1e9;
  d.gpu_syncs_per_step = GpuSyncsPerStep(profile);
  return d;
}

WorkloadDemand FromKernels(const Profile& profile, const WorkloadReport&) {
  WorkloadDemand d;
  d.source_kind = "kernels";
  if (auto sm = KernelCounterShare(profile, &KernelCounters::sm_throughput_pct))
    d.sm_active = Constant(*sm, "kernels' measured SM throughput (while running)");
  if (auto dram = KernelCounterShare(profile, &KernelCounters::dram_throughput_pct))
    d.dram_active = Constant(*dram, "kernels' measured DRAM throughput (while running)");
  if (auto occ = KernelCounterShare(profile, &KernelCounters::achieved_occupancy_pct))
    d.sm_occupancy = Constant(*occ, "kernels' measured achieved occupancy (while running)");
  return d;
}

// The size of the MIG instance (all its compute instances) a capture's series describe.
void FillMigInstance(const Profile& profile, int32_t gpu, int32_t gpu_instance, WorkloadDemand* d) {
  for (const DeviceInfo& device : profile.devices) {
    if (device.index != gpu) continue;
    for (const MigInstance& m : device.mig_instances) {
      if (m.gpu_instance_id != gpu_instance) continue;
      if (m.sm_count > 0) d->mig_instance_sm_count += m.sm_count;
      if (m.memory_bytes > 0) d->mig_instance_memory_bytes = static_cast<double>(m.memory_bytes);
    }
  }
}

// Series of one GPU (or MIG instance) of one host, one pod's when the source names pods, in
// one phase of a capture. The pod and host are part of it: a per-pod trace (the GenAI
// trace's 143 serving pods, with no GPU index) is 143 workloads, not one "gpu -1".
struct EntityKey {
  int32_t gpu = -1;
  std::string uuid;
  int32_t instance = -1;
  std::string phase;
  std::string hostname;
  std::string pod;  // "namespace/pod", "pod" or ""
  auto operator<=>(const EntityKey&) const = default;
};

EntityKey KeyOf(const SeriesEntity& e) {
  auto phase = e.labels.find("phase");
  std::string pod = e.pod.empty() || e.namespace_name.empty() ? e.pod : e.namespace_name + "/" + e.pod;
  return {e.gpu_index, e.gpu_uuid, e.gpu_instance_id, phase == e.labels.end() ? "" : phase->second, e.hostname,
          std::move(pod)};
}

// The host is named only where the profile spans several (a merged multi-node scrape).
std::string SampledWorkloadName(const Profile& profile, const EntityKey& key, bool name_host) {
  std::string name = profile.metadata.source;
  if (name_host && !key.hostname.empty()) name += " " + key.hostname;
  if (!key.pod.empty()) name += " pod " + key.pod;
  if (key.gpu >= 0 || key.pod.empty()) name += " gpu " + std::to_string(key.gpu);
  if (key.instance >= 0) name += " MIG " + std::to_string(key.instance);
  if (!key.phase.empty()) name += " [" + key.phase + "]";
  return name;
}

std::vector<WorkloadDemand> FromSamples(const Profile& profile) {
  std::map<EntityKey, std::vector<const Series*>> by_entity;
  for (const Series& s : profile.series)
    if (s.entity.pid < 0 && !s.samples.empty()) by_entity[KeyOf(s.entity)].push_back(&s);
  std::set<std::string> hosts;
  for (const auto& entry : by_entity) hosts.insert(entry.first.hostname);
  std::vector<WorkloadDemand> out;
  for (const auto& [key, series] : by_entity) {
    WorkloadDemand d;
    d.source_kind = "samples";
    const int32_t gpu = key.gpu, instance = key.instance;
    d.gpu_index = gpu;
    d.gpu_instance_id = instance;
    d.phase = key.phase;
    d.name = SampledWorkloadName(profile, key, hosts.size() > 1);
    auto values = [](const Series* s, double scale) {
      std::vector<double> v;
      for (const Sample& sample : s->samples) v.push_back(sample.value * scale);
      return v;
    };
    // The series with the most samples wins when a metric comes from several fields.
    std::map<Metric, const Series*> best;
    for (const Series* s : series) {
      auto& slot = best[s->metric];
      if (slot == nullptr || s->samples.size() > slot->samples.size()) slot = s;
    }
    auto stat = [&](Metric metric, double scale, DemandStat* out_stat) {
      auto it = best.find(metric);
      if (it == best.end()) return;
      *out_stat = StatOf(values(it->second, scale), it->second->source_name + " samples");
    };
    stat(Metric::kGpuUtilPct, 0.01, &d.gpu_busy);
    // DCGM's profiling counterpart of utilization.gpu, when only profiling fields were
    // exported (added for the co-location model, which needs a busy fraction).
    if (!d.gpu_busy.measured) stat(Metric::kGrEngineActiveRatio, 1, &d.gpu_busy);
    stat(Metric::kSmActiveRatio, 1, &d.sm_active);
    stat(Metric::kSmOccupancyRatio, 1, &d.sm_occupancy);
    stat(Metric::kTensorActiveRatio, 1, &d.tensor_active);
    stat(Metric::kDramActiveRatio, 1, &d.dram_active);
    stat(Metric::kFbUsedBytes, 1, &d.memory_bytes);
    // Both directions of a link: sent + received.
    auto both_ways = [&](Metric tx_metric, Metric rx_metric, DemandStat* out_stat) {
      auto tx = best.find(tx_metric), rx = best.find(rx_metric);
      if (tx == best.end() || rx == best.end()) return;
      DemandStat a = StatOf(values(tx->second, 1), ""), b = StatOf(values(rx->second, 1), "");
      out_stat->measured = true;
      out_stat->mean = a.mean + b.mean;
      out_stat->p95 = a.p95 + b.p95;  // an upper bound of the p95 of the sum
      out_stat->max = a.max + b.max;
      out_stat->basis = tx->second->source_name + " + " + rx->second->source_name + " samples";
    };
    both_ways(Metric::kPcieTxBytesPerS, Metric::kPcieRxBytesPerS, &d.pcie_bytes_per_s);
    both_ways(Metric::kNvlinkTxBytesPerS, Metric::kNvlinkRxBytesPerS, &d.nvlink_bytes_per_s);
    // Busy profile over time from the utilization series (or SM activity).
    const Series* busy = best.count(Metric::kGpuUtilPct) ? best[Metric::kGpuUtilPct]
                         : best.count(Metric::kSmActiveRatio) ? best[Metric::kSmActiveRatio] : nullptr;
    if (busy != nullptr && busy->samples.size() >= 2) {
      double scale = busy->metric == Metric::kGpuUtilPct ? 0.01 : 1;
      for (const Sample& s : busy->samples) d.busy_bins.push_back(s.value * scale);
      d.duration_s = static_cast<double>(busy->samples.back().time_ns - busy->samples.front().time_ns) / 1e9;
      d.bin_s = d.duration_s / static_cast<double>(busy->samples.size() - 1);
      d.bins_start_ns = busy->samples.front().time_ns;
    }
    if (instance >= 0) FillMigInstance(profile, gpu, instance, &d);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::vector<WorkloadDemand> DeriveDemands(const Profile& profile, const WorkloadReport& report,
                                          const DemandOptions& options) {
  std::vector<WorkloadDemand> out;
  bool timeline = report.timeline.trace.total_ns > 0;
  if (timeline) {
    out.push_back(FromTrace(profile, report, options));
  } else if (!profile.kernels.empty()) {
    out.push_back(FromKernels(profile, report));
  } else {
    out = FromSamples(profile);
  }
  for (WorkloadDemand& d : out) {
    if (d.name.empty()) {
      d.name = profile.metadata.source;
      if (profile.metadata.rank) d.name += " rank " + std::to_string(*profile.metadata.rank);
    }
    d.workload_type = WorkloadTypeName(report.workload_type.type);
    if (report.device_spec != nullptr) {
      d.device_id = report.device_spec->id;
      d.device_memory_bytes = static_cast<double>(report.device_spec->memory_bytes);
    }
    d.device_sm_count = report.sm_count;
    if (d.source_kind != "samples") FillKernelShape(profile, report, &d);
  }
  return out;
}

}  // namespace kraken
