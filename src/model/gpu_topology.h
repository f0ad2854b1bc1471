// How the GPUs of one node are wired, reduced to what placement needs: per GPU its NUMA
// node, CPU count, PCIe bandwidth and whether it is free; per pair the nvidia-smi path
// word and the one-direction bandwidth between them. Filled from NVML by the agent
// (collectors/nvml/topology.h), carried to the scheduler extender in the node annotation
// kraken.io/gpu-topology (k8s/client/topology_annotation.h).
#pragma once

#include <string>
#include <vector>

namespace kraken {

struct TopologyGpu {
  int index = -1;
  int numa_node = -1;     // -1: unknown
  int cpu_count = 0;      // CPUs NVML names as close to this GPU
  double pcie_gbps = 0;   // one direction of its PCIe link (generation x width); 0 unknown
  int nvlinks = 0;        // active NVLinks
  bool free = true;       // no pod holds it (the agent's GPU -> pod map)
};

struct GpuPairLink {
  int a = -1;
  int b = -1;
  // nvidia-smi topo -m's word: "NV18" (bonded NVLinks, direct or through NVSwitch), "PIX"
  // / "PXB" (PCIe switches), "PHB" / "NODE" (through the CPU's host bridge), "SYS"
  // (across the inter-socket link); "" unknown.
  std::string path;
  // The PCIe level alone (PIX ... SYS), also for an NVLink pair: two GPUs under one PCIe
  // switch (PIX, PXB) share its uplink for host traffic.
  std::string pcie_path;
  double gbps = 0;  // one direction, GB/s (model/link_bandwidth.h)
};

struct NodeGpuTopology {
  std::vector<TopologyGpu> gpus;
  std::vector<GpuPairLink> links;
  bool HasNvlink() const {
    for (const GpuPairLink& l : links)
      if (l.path.rfind("NV", 0) == 0) return true;
    return false;
  }
};

}  // namespace kraken
