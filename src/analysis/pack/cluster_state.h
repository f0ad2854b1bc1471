// The cluster while pods are being placed: free CPU and memory per node, free milli per
// GPU, and what the policies read often (largest free GPU, whole free GPUs, the node's
// fragment), kept up to date by Place(). Pods never leave (the FGD protocol's workload is
// static), so every quantity only goes down.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/pack/fragment.h"
#include "analysis/pack/pack_problem.h"
#include "base/status.h"

namespace kraken::pack {

// GpuClustering's "GPU affinity" classes of the pods a node runs: bit 0 = GPU-sharing
// pods, bit k (1..30) = pods of k whole GPUs.
inline uint32_t AffinityClassBit(const PodShape& pod) {
  if (pod.num_gpu == 0) return 0;
  if (pod.IsGpuSharing()) return 1u;
  return 1u << (pod.num_gpu < 31 ? pod.num_gpu : 31);
}

struct NodeState {
  int64_t cpu_free = 0;
  int64_t memory_free = 0;
  int64_t cpu_capacity = 0;
  int16_t gpu_free[kMaxGpusPerNode] = {};
  int32_t gpu_count = 0;
  int32_t gpu_free_total = 0;
  int16_t max_gpu_free = 0;     // largest free milli on one GPU
  int16_t whole_free_gpus = 0;  // GPUs with all 1000 milli free
  ModelMask model_bit = 0;      // 0 when the node has no GPU or no model name
  uint32_t affinity_classes = 0;
  int32_t pods = 0;
  uint32_t version = 0;  // bumped by every placement (score caches key on it)
  double fragment = 0;   // FragmentMeter::NodeFragment of the current state

  NodeFree Free() const { return NodeFree{cpu_free, gpu_free, gpu_count, model_bit}; }
};

class ClusterState {
 public:
  ClusterState(const PackProblem& problem, const FragmentMeter& meter);

  int size() const { return static_cast<int>(nodes_.size()); }
  const NodeState& node(int index) const { return nodes_[static_cast<size_t>(index)]; }
  const PackProblem& problem() const { return *problem_; }
  const FragmentMeter& meter() const { return *meter_; }

  // The fit filter: CPU and memory (Kubernetes' NodeResourcesFit) and the GPUs
  // (Open-Gpu-Share: model allowed, a sharing pod fits inside ONE GPU's free milli, a
  // multi-GPU pod gets whole free GPUs).
  bool Fits(int index, const PodShape& pod) const {
    const NodeState& n = nodes_[static_cast<size_t>(index)];
    if (n.cpu_free < pod.cpu_milli || n.memory_free < pod.memory_mib) return false;
    if (pod.num_gpu == 0) return true;
    if (n.gpu_count == 0 || !ModelAllowed(pod.models, n.model_bit)) return false;
    if (pod.gpu_milli >= kMilliPerGpu) return n.whole_free_gpus >= pod.num_gpu;
    if (pod.num_gpu == 1) return n.max_gpu_free >= pod.gpu_milli;
    return GpusWithAtLeast(n, pod.gpu_milli) >= pod.num_gpu;
  }

  // Places the pod on the GPUs of `gpus` (bit i = GPU i). Refuses (kInternal) anything
  // that would over-allocate a resource, break the sharing rule (one GPU per sharing pod,
  // whole GPUs otherwise) or the GPU-model constraint; the state is unchanged then.
  Status Place(int index, const PodShape& pod, GpuMask gpus);

  int64_t allocated_gpu_milli() const { return allocated_gpu_milli_; }
  int64_t idle_gpu_milli() const { return problem_->gpu_capacity_milli - allocated_gpu_milli_; }
  // Sum of the nodes' fragments, GPU milli.
  double total_fragment() const { return total_fragment_; }

  static int32_t GpusWithAtLeast(const NodeState& n, int32_t milli);

 private:
  void Refresh(NodeState& n) const;

  const PackProblem* problem_;
  const FragmentMeter* meter_;
  std::vector<NodeState> nodes_;
  int64_t allocated_gpu_milli_ = 0;
  double total_fragment_ = 0;
};

}  // namespace kraken::pack
