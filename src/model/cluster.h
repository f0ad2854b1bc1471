// A GPU cluster and the pods submitted to it, as a scheduler sees them: what each node
// offers and what each pod requests. Used by the packing simulation (`kraken pack`);
// filled by the openb loader (Alibaba cluster-trace-gpu-v2023) or built by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kraken {

// GPU milli-units: 1000 = one whole GPU. GPU-sharing pods ask for a part of ONE GPU.
inline constexpr int32_t kMilliPerGpu = 1000;

struct ClusterNode {
  std::string name;
  int64_t cpu_milli = 0;   // allocatable CPU, 1000 = one vCPU
  int64_t memory_mib = 0;  // allocatable host memory
  int32_t gpu_count = 0;   // 0 for a CPU-only node
  std::string gpu_model;   // "G2", "T4", "V100M32", ...; empty for a CPU-only node
};

struct PodRequest {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t num_gpu = 0;    // GPUs asked for; 0 = CPU-only pod
  int32_t gpu_milli = 0;  // per GPU: < 1000 for a sharing pod (num_gpu == 1), 1000 for whole GPUs
  // Allowed GPU models (any of them); empty = no constraint.
  std::vector<std::string> gpu_spec;

  bool IsGpuSharing() const { return num_gpu == 1 && gpu_milli < kMilliPerGpu; }
  int64_t TotalGpuMilli() const { return static_cast<int64_t>(num_gpu) * gpu_milli; }
};

}  // namespace kraken
