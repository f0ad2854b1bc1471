#include "analysis/aggregate.h"

#include <algorithm>
#include <map>

namespace kraken {

AggregateReport Aggregate(const std::vector<const WorkloadReport*>& reports, size_t top_n) {
  AggregateReport out;
  out.profiles = static_cast<int64_t>(reports.size());
  int training = 0, inference = 0;
  std::string training_confidence = "low", inference_confidence = "low";
  auto stronger = [](const std::string& a, const std::string& b) {
    auto rank = [](const std::string& c) { return c == "high" ? 2 : c == "medium" ? 1 : 0; };
    return rank(a) >= rank(b) ? a : b;
  };
  std::map<std::string, KernelGroupStats> merged;
  for (const WorkloadReport* r : reports) {
    const WorkloadTypeResult& t = r->workload_type;
    if (t.type == WorkloadType::kTraining) {
      ++training;
      training_confidence = stronger(training_confidence, t.confidence);
    } else if (t.type == WorkloadType::kInference) {
      ++inference;
      inference_confidence = stronger(inference_confidence, t.confidence);
    }
    const BoundMix& m = r->kernels.mix;
    out.mix.compute_ns += m.compute_ns;
    out.mix.memory_ns += m.memory_ns;
    out.mix.latency_ns += m.latency_ns;
    out.mix.mixed_ns += m.mixed_ns;
    out.mix.unknown_ns += m.unknown_ns;
    out.mix.tensor_core_ns += m.tensor_core_ns;
    out.mix.measured_basis_ns += m.measured_basis_ns;
    out.mix.name_basis_ns += m.name_basis_ns;
    out.kernel_time_ns += r->kernels.kernel_time_ns;
    out.kernel_count += r->kernels.kernel_count;
    for (const KernelGroupStats& g : r->kernels.top) {
      auto [it, inserted] = merged.emplace(g.name, g);
      if (inserted) continue;
      KernelGroupStats& acc = it->second;
      // Keep the classification of the larger contributor.
      if (g.total_ns > acc.total_ns) acc.classification = g.classification;
      acc.count += g.count;
      acc.total_ns += g.total_ns;
      acc.min_ns = std::min(acc.min_ns, g.min_ns);
      acc.max_ns = std::max(acc.max_ns, g.max_ns);
      acc.uses_tensor_cores = acc.uses_tensor_cores || g.uses_tensor_cores;
    }
  }
  // Training anywhere makes the job a training job (inference ranks of a training job
  // do not exist); inference needs every classified rank to agree.
  if (training > 0) {
    out.type = WorkloadType::kTraining;
    out.confidence = training_confidence;
  } else if (inference > 0) {
    out.type = WorkloadType::kInference;
    out.confidence = inference_confidence;
  } else {
    out.confidence = "low";
  }
  for (auto& [name, g] : merged) {
    g.mean_ns = g.count > 0 ? static_cast<double>(g.total_ns) / static_cast<double>(g.count) : 0;
    g.pct_of_kernel_time =
        out.kernel_time_ns > 0 ? 100.0 * static_cast<double>(g.total_ns) / static_cast<double>(out.kernel_time_ns) : 0;
    out.top_kernels.push_back(g);
  }
  std::sort(out.top_kernels.begin(), out.top_kernels.end(), [](const KernelGroupStats& a, const KernelGroupStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  if (out.top_kernels.size() > top_n) out.top_kernels.resize(top_n);
  return out;
}

}  // namespace kraken
