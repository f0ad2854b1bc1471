// The extender's co-location path: for a pending pod with a demand vector
// (kraken.io/demand), each candidate node's GPUs, the residents on each GPU
// (kraken.io/resident-demand), kraken's co-location model (PredictColocation) for the pod
// joining them, and the packing policy of analysis/pack for the pod's GPU request.
// Formula and weights: docs/scheduler-extender.md, "Scheduler extender".
#pragma once

#include <string>
#include <vector>

#include "k8s/client/demand_annotation.h"
#include "k8s/extender/scheduler_extender.h"
#include "model/colocation.h"
#include "model/device.h"

namespace kraken::k8s {

// What the co-location path reads from one Node object.
struct NodeGpuView {
  int gpus = 0;      // physical GPUs
  int replicas = 1;  // shares per GPU (time-slicing / MPS replicas of the device plugin)
  SharingMode mode = SharingMode::kTimeSlice;
  const DeviceSpec* device = nullptr;  // null: the model's default (the device the pod was measured on)
  std::string device_basis;            // which label (or none) chose the device
  std::string gpus_basis;
  ResidentDemand residents;
};

// GPUs: label nvidia.com/gpu.count (GPU feature discovery), else status.allocatable (else
// capacity) nvidia.com/gpu / replicas; at least one more than the highest resident GPU
// index. Replicas: nvidia.com/gpu.replicas (default 1). Mode: MPS when
// nvidia.com/gpu.sharing-strategy is "mps", else time-slicing. Device: kraken.io/gpu-class,
// else nvidia.com/gpu.product, else the model's default.
NodeGpuView ViewOfNode(const ExtenderNode& node);

// The workloads on GPU `gpu` of the node once the pod joins (residents first, the pod
// last), as BuildColocationWorkload makes them from the annotations' demand vectors.
std::vector<ColocationWorkload> WorkloadsOnGpu(const NodeGpuView& view, int gpu, const DemandEntry& pod,
                                               const std::string& pod_name);

std::vector<NodeDecision> DecideNodesByModel(const ExtenderRequest& request, const DemandEntry& pod,
                                             const ExtenderOptions& options);

}  // namespace kraken::k8s
