#include "profiling/run_summary.h"

#include <algorithm>
#include <cstdio>

#include "analysis/gpm_bound.h"

namespace kraken::profiling {
namespace {

// GPU g of a pass; passes normally all list every GPU, but a shorter one reads as "absent".
const GpuPass& GpuOf(const PassRecord& pass, int32_t g) {
  static const GpuPass kAbsent;
  return g >= 0 && static_cast<size_t>(g) < pass.gpus.size() ? pass.gpus[static_cast<size_t>(g)] : kAbsent;
}

// The tree's utilization of the GPUs it uses in one pass: its own processes' SM
// utilization where NVML reports it per process, else the device's (an upper bound when
// the GPU is shared); -1 when neither is known.
double TreeActivity(const PassRecord& pass, const std::vector<GpuRunSummary>& used, bool per_process) {
  double total = -1;
  for (const GpuRunSummary& g : used) {
    const GpuPass& p = GpuOf(pass, g.gpu_index);
    double v = per_process ? p.tree_sm_util_pct : p.device_util_pct;
    if (v >= 0) total = std::max(total, 0.0) + v;
  }
  return total;
}

IdleGaps FindIdleGaps(const std::vector<double>& activity, double interval_s, std::string basis) {
  IdleGaps gaps;
  if (activity.empty() || std::any_of(activity.begin(), activity.end(), [](double v) { return v < 0; })) return gaps;
  gaps.known = true;
  gaps.basis = std::move(basis);
  int64_t run = 0;
  for (size_t i = 0; i <= activity.size(); ++i) {
    if (i < activity.size() && activity[i] == 0) {
      ++run;
      continue;
    }
    if (run > 0) {
      ++gaps.count;
      gaps.total_passes += run;
      gaps.longest_passes = std::max(gaps.longest_passes, run);
    }
    run = 0;
  }
  gaps.longest_s = static_cast<double>(gaps.longest_passes) * interval_s;
  gaps.total_s = static_cast<double>(gaps.total_passes) * interval_s;
  return gaps;
}

// GPM activity of the GPUs used, median over the passes the tree was on them.
void DecideBound(const std::vector<PassRecord>& passes, RunSummary& summary) {
  std::vector<double> sm, dram;
  for (const PassRecord& pass : passes)
    for (const GpuRunSummary& g : summary.gpus_used) {
      const GpuPass& p = GpuOf(pass, g.gpu_index);
      if (!p.tree_present || p.dram_active < 0 || (p.sm_active < 0 && p.tensor_active < 0)) continue;
      sm.push_back(std::max(p.sm_active, p.tensor_active));
      dram.push_back(p.dram_active);
    }
  std::optional<GpmBound> verdict = BoundFromGpmActivity(sm, dram);
  if (!verdict) {
    summary.bound = "unknown";
    summary.bound_reason = "NVML gave no SM/DRAM activity (GPM) for the GPUs used; utilization alone cannot tell";
    return;
  }
  summary.bound = verdict->bound;
  summary.bound_reason = verdict->reason;
}

void DecidePeriodicity(const std::vector<double>& activity, double interval_s, RunSummary& summary) {
  temporal::RegularGrid grid;
  grid.step = static_cast<int64_t>(interval_s * 1e9);
  for (double v : activity) {
    if (v < 0) {
      summary.periodicity_reason = "utilization not reported in every pass";
      return;
    }
    grid.values.push_back(v);
    grid.observed.push_back(1);
  }
  grid.samples = activity.size();
  temporal::PeriodicityOptions options;
  options.calendar_unit = 0;  // a run of seconds to hours: no daily calendar
  options.max_period = 0;
  temporal::PeriodicityResult result = temporal::DetectPeriodicity(grid, options);
  summary.periodicity_known = true;
  summary.periodicity = result.verdict;
  summary.periodicity_reason = result.reason;
  if (result.verdict == temporal::PeriodVerdict::kPeriodic) summary.period_s = static_cast<double>(result.period) / 1e9;
}

}  // namespace

RunSummary SummarizeRun(const std::vector<PassRecord>& recorded, double interval_s) {
  std::vector<PassRecord> filled;
  const std::vector<PassRecord>& passes = FillSkippedProcessReads(recorded, filled);
  RunSummary summary;
  summary.passes = static_cast<int64_t>(passes.size());
  summary.interval_s = interval_s;
  size_t gpu_count = 0;
  for (const PassRecord& pass : passes) gpu_count = std::max(gpu_count, pass.gpus.size());

  bool per_process = true;  // every used GPU answered per-process utilization in every pass
  for (size_t g = 0; g < gpu_count; ++g) {
    GpuRunSummary gpu;
    gpu.gpu_index = static_cast<int32_t>(g);
    std::vector<double> device, tree;
    for (const PassRecord& pass : passes) {
      if (g >= pass.gpus.size()) continue;
      const GpuPass& p = pass.gpus[g];
      gpu.passes_present += p.tree_present ? 1 : 0;
      gpu.passes_shared += p.tree_present && p.shared ? 1 : 0;
      gpu.tree_memory_peak_bytes = std::max(gpu.tree_memory_peak_bytes, p.tree_memory_bytes);
      gpu.gpu_instances.insert(p.tree_gpu_instances.begin(), p.tree_gpu_instances.end());
      if (p.device_util_pct >= 0) device.push_back(p.device_util_pct);
      if (p.tree_sm_util_pct >= 0) tree.push_back(p.tree_sm_util_pct);
    }
    if (gpu.passes_present == 0) continue;
    if (!device.empty()) gpu.device_util_pct = Summarize(device);
    if (!tree.empty()) gpu.tree_sm_util_pct = Summarize(tree);
    per_process = per_process && tree.size() == passes.size();
    summary.gpus_used.push_back(std::move(gpu));
  }
  for (const PassRecord& pass : passes) {
    double sum = 0;
    for (const GpuRunSummary& g : summary.gpus_used) sum += GpuOf(pass, g.gpu_index).tree_memory_bytes;
    summary.memory_peak_bytes = std::max(summary.memory_peak_bytes, sum);
  }

  std::vector<double> activity;
  for (const PassRecord& pass : passes) activity.push_back(TreeActivity(pass, summary.gpus_used, per_process));
  if (!summary.gpus_used.empty()) {
    summary.idle = FindIdleGaps(activity, interval_s,
                                per_process ? "the tree's per-process SM utilization"
                                            : "device utilization (includes other processes on the GPU)");
    DecideBound(passes, summary);
    DecidePeriodicity(activity, interval_s, summary);
  } else {
    summary.bound_reason = "no process of the tree used a GPU";
    summary.periodicity_reason = "no process of the tree used a GPU";
  }
  summary.workload_type_reason =
      "NVML samples carry no evidence of a backward pass or a serving engine; record kernels (--kernels) or "
      "analyze a Kineto trace for that";
  return summary;
}

}  // namespace kraken::profiling
