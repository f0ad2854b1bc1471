// Test support: a node's placement topology built from one real nvidia-smi capture of
// shared/data/nvidia-smi. Each capture holds one GPU; its per-GPU facts (active NVLinks,
// PCIe generation and width, NUMA node, CPU list, architecture) are real and the node is
// `copies` of it (the converter's --copies). What the capture cannot say, how the copies
// are wired, the caller states: the PCIe level of each pair, and whether the NVLinks end
// at an NVSwitch. Test-only, header-only.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "base/testing/test_data.h"
#include "collectors/nvml/smi_capture_converter.h"
#include "collectors/nvml/topology.h"

namespace kraken::nvml::testing {

inline constexpr char kH100SmiCapture[] = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";
inline constexpr char kL40sSmiCapture[] = "nvidia-smi/capture__linux-x86_64__nvidia-l40s__595.80.txt";

struct NodeWiring {
  // NVML_TOPOLOGY_* of the pair (a < b), or -1 to leave it unknown.
  std::function<int(int, int)> pcie_level = [](int, int) { return -1; };
  // The far end of every active NVLink is an NVSwitch (a bus id that is none of the GPUs),
  // as on an HGX H100 board, whose GPUs have all 18 links to the board's NVSwitch chips.
  bool nvswitch = false;
  // NUMA node of GPU i; empty keeps the capture's.
  std::function<int(int)> numa_node;
};

inline NodeGpuTopology NodeFromSmiCapture(const char* capture, int copies, const NodeWiring& wiring = {}) {
  SmiConversionOptions options;
  options.copies = copies;
  Result<Capture> c = CaptureFromNvidiaSmi(kraken::testing::DataPath(capture), options);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return {};
  for (TopologyLink& link : c->topology)
    if (int level = wiring.pcie_level(static_cast<int>(link.a), static_cast<int>(link.b)); level >= 0)
      link.common_ancestor.Set(level);
  for (DeviceFacts& d : c->devices)
    for (NvLinkFacts& link : d.nvlinks)
      if (wiring.nvswitch && link.state.ok()) link.remote.Set("00000000:FF:00.0");
  NodeGpuTopology node = PlacementTopology(c->devices, BuildTopology(c->devices, c->topology));
  if (wiring.numa_node)
    for (TopologyGpu& g : node.gpus) g.numa_node = wiring.numa_node(g.index);
  return node;
}

// A common 8-GPU PCIe server: two sockets (GPUs 0-3 on NUMA node 0, 4-7 on 1), two PCIe
// switches per socket, two GPUs per switch.
inline NodeWiring TwoSocketPcieTree() {
  NodeWiring w;
  w.pcie_level = [](int a, int b) {
    if (a / 2 == b / 2) return static_cast<int>(NVML_TOPOLOGY_SINGLE);  // PIX
    if (a / 4 == b / 4) return static_cast<int>(NVML_TOPOLOGY_NODE);
    return static_cast<int>(NVML_TOPOLOGY_SYSTEM);
  };
  w.numa_node = [](int gpu) { return gpu / 4; };
  return w;
}

inline NodeWiring HgxNvswitch() {
  NodeWiring w;
  w.nvswitch = true;
  return w;
}

}  // namespace kraken::nvml::testing
