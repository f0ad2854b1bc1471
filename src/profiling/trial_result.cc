#include "profiling/trial_result.h"

#include <algorithm>

#include "analysis/distribution.h"

namespace kraken::profiling {

TrialGpuFacts SummarizeCandidatePasses(const std::vector<PassRecord>& recorded, int32_t gpu_index) {
  std::vector<PassRecord> filled;
  const std::vector<PassRecord>& passes = FillSkippedProcessReads(recorded, filled);
  TrialGpuFacts facts;
  facts.passes = static_cast<int64_t>(passes.size());
  std::vector<double> tree, device;
  for (const PassRecord& pass : passes) {
    for (size_t g = 0; g < pass.gpus.size(); ++g)
      if (pass.gpus[g].tree_present) facts.gpus_seen.insert(static_cast<int32_t>(g));
    if (gpu_index < 0 || static_cast<size_t>(gpu_index) >= pass.gpus.size()) continue;
    const GpuPass& gpu = pass.gpus[static_cast<size_t>(gpu_index)];
    if (gpu.tree_sm_util_pct >= 0) tree.push_back(gpu.tree_sm_util_pct);
    if (gpu.device_util_pct >= 0) device.push_back(gpu.device_util_pct);
    facts.memory_peak_bytes = std::max(facts.memory_peak_bytes, gpu.tree_memory_bytes);
    if (gpu.tree_present) ++facts.passes_present;
    facts.gpu_instances_seen.insert(gpu.tree_gpu_instances.begin(), gpu.tree_gpu_instances.end());
  }
  std::vector<double>* values = nullptr;
  if (!passes.empty() && static_cast<int64_t>(tree.size()) == facts.passes) {
    values = &tree;
    facts.util_basis = "tree SM util";
  } else if (!passes.empty() && static_cast<int64_t>(device.size()) == facts.passes) {
    values = &device;
    facts.util_basis = "device util";
  }
  if (values != nullptr) {
    std::sort(values->begin(), values->end());
    facts.util_p50_pct = QuantileSorted(*values, 0.5);
    facts.util_p95_pct = QuantileSorted(*values, 0.95);
  }
  return facts;
}

TrialRanking RankCandidates(const std::vector<TrialResult>& results) {
  TrialRanking ranking;
  for (size_t i = 0; i < results.size(); ++i) {
    const TrialResult& r = results[i];
    std::string reason;
    if (!r.throughput) {
      reason = "throughput not measured (no --throughput-regex or --throughput-file)";
    } else if (r.interrupted) {
      reason = "interrupted by a stop signal";
    } else if (r.exit.state == "not started") {
      reason = "the command did not start";
    } else if (r.exit.state == "exited" && r.exit.exit_code.value_or(1) != 0) {
      reason = "the workload failed (exit code " + std::to_string(r.exit.exit_code.value_or(-1)) + ")";
    } else if (r.throughput->readings == 0) {
      reason = "no throughput reading after the warmup";
    } else if (!r.candidate.gpu_fraction || *r.candidate.gpu_fraction <= 0) {
      reason = "GPU fraction " + r.candidate.fraction_basis;
    }
    if (!reason.empty()) {
      ranking.unranked.push_back({i, reason});
      continue;
    }
    ranking.ranked.push_back({i, 0, r.throughput->median / *r.candidate.gpu_fraction, 0});
  }
  auto better = [](const RankedCandidate& a, const RankedCandidate& b) {
    return a.throughput_per_gpu_fraction > b.throughput_per_gpu_fraction;
  };
  std::stable_sort(ranking.ranked.begin(), ranking.ranked.end(), better);
  for (size_t k = 0; k < ranking.ranked.size(); ++k) {
    RankedCandidate& c = ranking.ranked[k];
    // Equal values share a rank ("1, 1, 3"), so a tie does not read as a preference.
    bool tie = k > 0 && c.throughput_per_gpu_fraction == ranking.ranked[k - 1].throughput_per_gpu_fraction;
    c.rank = tie ? ranking.ranked[k - 1].rank : static_cast<int>(k) + 1;
    double best = ranking.ranked.front().throughput_per_gpu_fraction;
    c.relative_to_best = best > 0 ? c.throughput_per_gpu_fraction / best : 0;
  }
  return ranking;
}

}  // namespace kraken::profiling
