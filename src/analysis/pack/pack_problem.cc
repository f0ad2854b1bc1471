#include "analysis/pack/pack_problem.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/text.h"

namespace kraken::pack {
namespace {

std::string JoinSpec(const std::vector<std::string>& spec) {
  std::string out;
  for (const std::string& model : spec) {
    if (!out.empty()) out += '|';
    out += model;
  }
  return out;
}

ModelMask SpecMask(const std::vector<std::string>& spec, const std::vector<std::string>& models) {
  if (spec.empty()) return kAnyModel;
  ModelMask mask = 0;
  for (const std::string& wanted : spec)
    for (size_t i = 0; i < models.size(); ++i)
      if (models[i] == wanted) mask |= ModelMask{1} << i;
  return mask;  // 0 when no listed model exists here: no GPU node can take the pod
}

// FGD's typical pods: shapes (CPU, per-GPU milli, GPU count, GPU type; not memory) of the
// original list by frequency, CPU-only pods included, the most frequent first. Shapes are
// added one at a time until they cover `threshold_pct` of the pods; the kept shapes'
// frequencies are renormalised to sum to 1. Equal counts are ordered by descending
// (CPU, milli, count, type), which is the order of the reference simulator's sort.
std::vector<TypicalPod> ComputeTypicalPods(const std::vector<PodRequest>& pods, const std::vector<std::string>& models,
                                           double threshold_pct) {
  using Key = std::tuple<int64_t, int32_t, int32_t, std::string>;  // cpu, milli, num, spec
  std::map<Key, int64_t> counts;
  for (const PodRequest& p : pods) {
    if (p.num_gpu > 0)
      ++counts[Key{p.cpu_milli, p.gpu_milli, p.num_gpu, JoinSpec(p.gpu_spec)}];
    else
      ++counts[Key{p.cpu_milli, 0, 0, ""}];  // a CPU-only pod has no GPU annotations
  }
  std::vector<std::pair<Key, int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first > b.first;
  });
  const double total = static_cast<double>(pods.size());
  const double wanted = threshold_pct * total / 100.0;
  int64_t covered = 0;
  size_t kept = 0;
  while (kept < sorted.size() && static_cast<double>(covered) < wanted) covered += sorted[kept++].second;

  std::vector<TypicalPod> typical;
  for (size_t i = 0; i < kept; ++i) {
    const auto& [cpu, milli, num, spec] = sorted[i].first;
    TypicalPod t;
    t.cpu_milli = cpu;
    t.gpu_milli = milli;
    t.num_gpu = num;
    std::vector<std::string> spec_models;
    for (std::string_view model : Split(spec, '|'))
      if (!model.empty()) spec_models.emplace_back(model);
    t.models = SpecMask(spec_models, models);
    t.count = sorted[i].second;
    t.probability = static_cast<double>(t.count) / static_cast<double>(covered);
    typical.push_back(t);
  }
  return typical;
}

}  // namespace

Result<PackProblem> PreparePackProblem(std::vector<ClusterNode> nodes, std::vector<PodRequest> pods,
                                       const PackOptions& options) {
  PackProblem problem;
  if (nodes.empty()) return InvalidInput("the node list is empty");
  for (const ClusterNode& n : nodes) {
    if (n.gpu_count > kMaxGpusPerNode)
      return Unsupported("node " + n.name + " has " + std::to_string(n.gpu_count) + " GPUs; at most " +
                         std::to_string(kMaxGpusPerNode) + " are supported");
    if (n.gpu_count < 0 || n.cpu_milli < 0 || n.memory_mib < 0)
      return InvalidInput("node " + n.name + " has negative resources");
    problem.gpu_capacity_milli += int64_t{n.gpu_count} * kMilliPerGpu;
    int32_t model = -1;
    if (n.gpu_count > 0 && !n.gpu_model.empty()) {
      auto it = std::find(problem.models.begin(), problem.models.end(), n.gpu_model);
      if (it == problem.models.end()) {
        if (problem.models.size() == 64) return Unsupported("more than 64 GPU models in the node list");
        problem.models.push_back(n.gpu_model);
        it = problem.models.end() - 1;
      }
      model = static_cast<int32_t>(it - problem.models.begin());
    }
    problem.node_model.push_back(model);
  }
  if (problem.gpu_capacity_milli == 0) return InvalidInput("the node list has no GPU");
  if (pods.empty()) return InvalidInput("the pod list is empty");

  // The reference simulator sorts pods by name before its seeded shuffle.
  std::stable_sort(pods.begin(), pods.end(), [](const PodRequest& a, const PodRequest& b) { return a.name < b.name; });

  using ShapeKey = std::tuple<int64_t, int64_t, int32_t, int32_t, ModelMask>;
  using ScoreKey = std::tuple<int64_t, int32_t, int32_t, ModelMask>;
  std::map<ShapeKey, int32_t> shape_ids;
  std::map<ScoreKey, int32_t> score_ids;
  for (const PodRequest& p : pods) {
    PodShape shape;
    shape.cpu_milli = p.cpu_milli;
    shape.memory_mib = p.memory_mib;
    shape.num_gpu = p.num_gpu;
    shape.gpu_milli = p.num_gpu > 0 ? p.gpu_milli : 0;
    shape.models = p.num_gpu > 0 ? SpecMask(p.gpu_spec, problem.models) : kAnyModel;
    problem.pod_gpu_request_milli += shape.TotalGpuMilli();
    ShapeKey key{shape.cpu_milli, shape.memory_mib, shape.num_gpu, shape.gpu_milli, shape.models};
    auto [it, inserted] = shape_ids.emplace(key, static_cast<int32_t>(problem.shapes.size()));
    if (inserted) {
      ScoreKey score_key{shape.cpu_milli, shape.num_gpu, shape.gpu_milli, shape.models};
      auto [sit, unused] = score_ids.emplace(score_key, static_cast<int32_t>(score_ids.size()));
      shape.score_key = sit->second;
      problem.shapes.push_back(shape);
    }
    problem.pod_shape.push_back(it->second);
  }
  problem.score_keys = static_cast<int32_t>(score_ids.size());
  problem.typical = ComputeTypicalPods(pods, problem.models, options.popularity_threshold_pct);
  problem.nodes = std::move(nodes);
  problem.pods = std::move(pods);
  return problem;
}

std::string DescribeShape(int64_t cpu_milli, int32_t num_gpu, int32_t gpu_milli, ModelMask models,
                          const std::vector<std::string>& model_names) {
  std::string out = std::to_string(cpu_milli) + "m CPU, ";
  if (num_gpu == 0) {
    out += "no GPU";
  } else {
    out += std::to_string(num_gpu) + "x" + std::to_string(gpu_milli) + "m GPU";
    if (models != kAnyModel) {
      std::string list;
      for (size_t i = 0; i < model_names.size() && i < 64; ++i)
        if (models & (ModelMask{1} << i)) {
          if (!list.empty()) list += '|';
          list += model_names[i];
        }
      out += " on " + (list.empty() ? std::string("(no model here)") : list);
    }
  }
  return out;
}

}  // namespace kraken::pack
