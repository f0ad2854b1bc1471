#include "collectors/nvml/topology.h"

#include <algorithm>

#include "model/link_bandwidth.h"

namespace kraken::nvml {
namespace {

// Bus ids compare case-insensitively and with either domain width ("0000:18:00.0" is
// "00000000:18:00.0").
std::string CanonicalBusId(std::string_view id) {
  std::string out;
  for (char c : id) out += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  size_t colon = out.find(':');
  if (colon != std::string::npos && colon < 8) out.insert(0, 8 - colon, '0');
  return out;
}

}  // namespace

std::string_view TopologyLevelName(int32_t level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL: return "BOARD";
    case NVML_TOPOLOGY_SINGLE: return "PIX";
    case NVML_TOPOLOGY_MULTIPLE: return "PXB";
    case NVML_TOPOLOGY_HOSTBRIDGE: return "PHB";
    case NVML_TOPOLOGY_NODE: return "NODE";
    case NVML_TOPOLOGY_SYSTEM: return "SYS";
    default: return "";
  }
}

NodeTopology BuildTopology(const std::vector<DeviceFacts>& devices, const std::vector<TopologyLink>& links) {
  NodeTopology topology;
  std::vector<std::string> bus_ids;
  for (const DeviceFacts& d : devices) bus_ids.push_back(d.pci.ok() ? CanonicalBusId(d.pci.value.bus_id) : "");
  // links_to[a][b]: active links from GPU a whose far end is GPU b.
  std::vector<std::vector<int32_t>> links_to(devices.size(), std::vector<int32_t>(devices.size(), 0));
  for (size_t i = 0; i < devices.size(); ++i) {
    const DeviceFacts& d = devices[i];
    GpuPlacement& gpu = topology.gpus.emplace_back();
    gpu.gpu_index = static_cast<int32_t>(i);
    if (d.numa_node.ok()) gpu.numa_node = static_cast<int32_t>(d.numa_node.value);
    if (d.cpu_affinity.ok()) gpu.cpus = d.cpu_affinity.value;
    for (const NvLinkFacts& link : d.nvlinks) {
      if (!link.state.ok() || link.state.value != NVML_FEATURE_ENABLED) continue;
      ++gpu.active_nvlinks;
      if (!link.remote.ok()) continue;
      std::string remote = CanonicalBusId(link.remote.value);
      auto peer = std::find(bus_ids.begin(), bus_ids.end(), remote);
      if (peer != bus_ids.end() && !remote.empty()) {
        ++links_to[i][static_cast<size_t>(peer - bus_ids.begin())];
      } else {
        ++gpu.nvlinks_to_switch;
      }
    }
  }
  for (const TopologyLink& link : links) {
    if (link.a >= devices.size() || link.b >= devices.size()) continue;
    GpuPair& pair = topology.pairs.emplace_back();
    pair.a = static_cast<int32_t>(link.a);
    pair.b = static_cast<int32_t>(link.b);
    if (link.common_ancestor.ok()) pair.common_ancestor = link.common_ancestor.value;
    pair.nvlinks = std::max(links_to[link.a][link.b], links_to[link.b][link.a]);
    int32_t through_switch = std::min(topology.gpus[link.a].nvlinks_to_switch, topology.gpus[link.b].nvlinks_to_switch);
    if (pair.nvlinks == 0 && through_switch > 0) {
      pair.nvlinks = through_switch;
      pair.via_nvswitch = true;
    }
    pair.path = pair.nvlinks > 0 ? "NV" + std::to_string(pair.nvlinks) : std::string(TopologyLevelName(pair.common_ancestor));
  }
  return topology;
}

NodeGpuTopology PlacementTopology(const std::vector<DeviceFacts>& devices, const NodeTopology& topology) {
  NodeGpuTopology out;
  std::vector<double> nvlink_per_link;
  for (size_t i = 0; i < devices.size() && i < topology.gpus.size(); ++i) {
    const DeviceFacts& d = devices[i];
    const GpuPlacement& p = topology.gpus[i];
    TopologyGpu& gpu = out.gpus.emplace_back();
    gpu.index = p.gpu_index;
    gpu.numa_node = p.numa_node;
    gpu.cpu_count = static_cast<int>(p.cpus.size());
    gpu.nvlinks = p.active_nvlinks;
    if (d.pcie_max_generation.ok() && d.pcie_max_width.ok())
      gpu.pcie_gbps = PcieGbps(static_cast<int>(d.pcie_max_generation.value), static_cast<int>(d.pcie_max_width.value));
    int arch = d.architecture.ok() ? static_cast<int>(d.architecture.value) : 0;
    nvlink_per_link.push_back(NvlinkGbpsPerLink(NvlinkGeneration(arch)));
  }
  for (const GpuPair& pair : topology.pairs) {
    if (pair.a < 0 || pair.b < 0 || static_cast<size_t>(std::max(pair.a, pair.b)) >= out.gpus.size()) continue;
    GpuPairLink& link = out.links.emplace_back();
    link.a = pair.a;
    link.b = pair.b;
    link.path = pair.path;
    link.pcie_path = std::string(TopologyLevelName(pair.common_ancestor));
    double per_link = std::min(nvlink_per_link[static_cast<size_t>(pair.a)], nvlink_per_link[static_cast<size_t>(pair.b)]);
    link.gbps = PairGbps(pair.path.empty() ? link.pcie_path : pair.path, per_link,
                         out.gpus[static_cast<size_t>(pair.a)].pcie_gbps, out.gpus[static_cast<size_t>(pair.b)].pcie_gbps);
  }
  return out;
}

}  // namespace kraken::nvml
