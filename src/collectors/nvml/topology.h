// How the GPUs of a node are wired, from NVML: NVLink peers, the PCIe common ancestor of
// every pair, and the CPUs / NUMA node each GPU is closest to. Needed for topology-aware
// placement.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/nvml/capture.h"
#include "model/gpu_topology.h"

namespace kraken::nvml {

struct GpuPlacement {
  int32_t gpu_index = -1;
  int32_t numa_node = -1;      // -1 when NVML does not say
  std::vector<uint32_t> cpus;  // the CPUs NVML names as ideal for this GPU
  int32_t active_nvlinks = 0;
  int32_t nvlinks_to_switch = 0;  // active links whose far end is not one of the node's GPUs
};

struct GpuPair {
  int32_t a = -1;
  int32_t b = -1;
  int32_t common_ancestor = -1;  // NVML_TOPOLOGY_*; -1 when NVML does not say
  int32_t nvlinks = 0;           // direct links, or links through NVSwitch (the fewer of both ends)
  bool via_nvswitch = false;
  // nvidia-smi topo -m's words: "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"; "" unknown.
  std::string path;
};

struct NodeTopology {
  std::vector<GpuPlacement> gpus;
  std::vector<GpuPair> pairs;
};

// nvidia-smi's word for a PCIe level ("PIX" for NVML_TOPOLOGY_SINGLE); "" when unknown.
std::string_view TopologyLevelName(int32_t level);

NodeTopology BuildTopology(const std::vector<DeviceFacts>& devices, const std::vector<TopologyLink>& links);

// What placement needs (model/gpu_topology.h): per GPU its NUMA node, CPU count and PCIe
// bandwidth (max generation x width), per pair its path and bandwidth (model/
// link_bandwidth.h: NVLink per link by the GPU's architecture). Every GPU is free; the
// agent marks the ones its pods hold.
NodeGpuTopology PlacementTopology(const std::vector<DeviceFacts>& devices, const NodeTopology& topology);

}  // namespace kraken::nvml
