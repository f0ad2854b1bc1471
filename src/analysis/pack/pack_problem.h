// The packing problem prepared once per (node list, pod list): pods sorted by name with
// their shapes deduplicated, GPU models numbered, and the typical pods of FGD's
// fragmentation measure. Every experiment (policy x seed) reads it; nothing in it changes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/cluster.h"

namespace kraken::pack {

// Nodes with more GPUs than this are refused (the GPU choice is a 16-bit mask).
inline constexpr int kMaxGpusPerNode = 16;
using GpuMask = uint16_t;
// A bit per GPU model present in the cluster; all bits = no constraint.
using ModelMask = uint64_t;
inline constexpr ModelMask kAnyModel = ~ModelMask{0};

// What a pod asks for, with its GPU-model constraint turned into a mask. Pods with the
// same shape share `score_key` when they differ only in memory: no policy scores memory
// (it is only checked by the fit filter), so scores can be cached per score_key.
struct PodShape {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t num_gpu = 0;
  int32_t gpu_milli = 0;
  ModelMask models = kAnyModel;
  int32_t score_key = 0;

  bool IsGpuSharing() const { return num_gpu == 1 && gpu_milli < kMilliPerGpu; }
  int64_t TotalGpuMilli() const { return static_cast<int64_t>(num_gpu) * gpu_milli; }
};

// A pod shape of the original trace (memory not part of it) and how often it occurs:
// FGD's "typical pods", the distribution the fragmentation measure averages over.
struct TypicalPod {
  int64_t cpu_milli = 0;
  int32_t num_gpu = 0;
  int32_t gpu_milli = 0;
  ModelMask models = kAnyModel;
  int64_t count = 0;       // pods of this shape in the original list
  double probability = 0;  // renormalised over the typical shapes (sums to 1)
};

struct PackOptions {
  // Typical pods: the most frequent shapes until they cover this % of pods (FGD: 95).
  double popularity_threshold_pct = 95;
};

struct PackProblem {
  std::vector<ClusterNode> nodes;
  std::vector<PodRequest> pods;    // sorted by name (the order the shuffle starts from)
  std::vector<int32_t> pod_shape;  // index into shapes, per pod
  std::vector<PodShape> shapes;
  int32_t score_keys = 0;             // number of distinct PodShape::score_key
  std::vector<std::string> models;    // GPU model names; bit i of a ModelMask = models[i]
  std::vector<int32_t> node_model;    // index into models per node, -1 for CPU-only nodes
  std::vector<TypicalPod> typical;    // most frequent first
  int64_t gpu_capacity_milli = 0;     // sum over nodes of gpu_count * 1000
  int64_t pod_gpu_request_milli = 0;  // sum over pods of num_gpu * gpu_milli
};

// Checks and prepares the inputs: at least one GPU, no node above kMaxGpusPerNode GPUs,
// no more than 64 GPU models.
Result<PackProblem> PreparePackProblem(std::vector<ClusterNode> nodes, std::vector<PodRequest> pods,
                                       const PackOptions& options = {});

// "3152m CPU, 1x810m GPU" / "12500m CPU, no GPU" (+ " on V100M32|G3" when constrained).
std::string DescribeShape(int64_t cpu_milli, int32_t num_gpu, int32_t gpu_milli, ModelMask models,
                          const std::vector<std::string>& model_names);

}  // namespace kraken::pack
