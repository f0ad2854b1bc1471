#include "analysis/pack/cluster_state.h"

#include <algorithm>
#include <bit>
#include <string>

namespace kraken::pack {

ClusterState::ClusterState(const PackProblem& problem, const FragmentMeter& meter)
    : problem_(&problem), meter_(&meter) {
  nodes_.resize(problem.nodes.size());

  for (size_t i = 0; i < problem.nodes.size(); ++i) {
    const ClusterNode& src = problem.nodes[i];
    NodeState& n = nodes_[i];
    n.cpu_free = src.cpu_milli;
    n.cpu_capacity = src.cpu_milli;
    n.memory_free = src.memory_mib;
    n.gpu_count = src.gpu_count;
    for (int32_t g = 0; g < n.gpu_count; ++g) n.gpu_free[g] = kMilliPerGpu;
    const int32_t model = problem.node_model[i];
    n.model_bit = model >= 0 ? ModelMask{1} << model : 0;
    Refresh(n);
    total_fragment_ += n.fragment;
  }
}

int32_t ClusterState::GpusWithAtLeast(const NodeState& n, int32_t milli) {
  int32_t count = 0;
  for (int32_t g = 0; g < n.gpu_count; ++g) count += n.gpu_free[g] >= milli ? 1 : 0;
  return count;
}

void ClusterState::Refresh(NodeState& n) const {
  n.gpu_free_total = 0;
  n.max_gpu_free = 0;
  n.whole_free_gpus = 0;
  for (int32_t g = 0; g < n.gpu_count; ++g) {
    n.gpu_free_total += n.gpu_free[g];
    n.max_gpu_free = std::max(n.max_gpu_free, n.gpu_free[g]);
    if (n.gpu_free[g] == kMilliPerGpu) ++n.whole_free_gpus;
  }
  n.fragment = meter_->NodeFragment(n.Free());
}

Status ClusterState::Place(int index, const PodShape& pod, GpuMask gpus) {
  if (index < 0 || index >= size()) return Status(StatusCode::kInternal, "placement on a node that does not exist");
  NodeState& n = nodes_[static_cast<size_t>(index)];
  auto refuse = [&](const std::string& what) {
    return Status(StatusCode::kInternal, "node " + problem_->nodes[static_cast<size_t>(index)].name + ": " + what);
  };
  if (n.cpu_free < pod.cpu_milli || n.memory_free < pod.memory_mib)
    return refuse("CPU or memory would be over-allocated");
  if (std::popcount(static_cast<unsigned>(gpus)) != pod.num_gpu)
    return refuse("the pod asks for " + std::to_string(pod.num_gpu) + " GPUs but got " +
                  std::to_string(std::popcount(static_cast<unsigned>(gpus))));
  if (pod.num_gpu > 0) {
    if (!ModelAllowed(pod.models, n.model_bit)) return refuse("GPU model not allowed");
    if (pod.num_gpu > 1 && pod.gpu_milli != kMilliPerGpu) return refuse("a pod on several GPUs must take whole GPUs");
    for (int32_t g = 0; g < kMaxGpusPerNode; ++g) {
      if (!(gpus & (GpuMask{1} << g))) continue;
      if (g >= n.gpu_count) return refuse("GPU index out of range");
      if (n.gpu_free[g] < pod.gpu_milli) return refuse("GPU " + std::to_string(g) + " would be over-allocated");
    }
    for (int32_t g = 0; g < n.gpu_count; ++g) {
      if (!(gpus & (GpuMask{1} << g))) continue;
      n.gpu_free[g] = static_cast<int16_t>(n.gpu_free[g] - pod.gpu_milli);
    }
  }
  n.cpu_free -= pod.cpu_milli;
  n.memory_free -= pod.memory_mib;
  n.affinity_classes |= AffinityClassBit(pod);
  ++n.pods;
  ++n.version;
  allocated_gpu_milli_ += pod.TotalGpuMilli();
  total_fragment_ -= n.fragment;
  Refresh(n);
  total_fragment_ += n.fragment;
  return Status::Ok();
}

}  // namespace kraken::pack
