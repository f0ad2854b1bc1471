// Topology-aware GPU sets on nodes built from the real nvidia-smi captures in
// shared/data/nvidia-smi (collectors/nvml/topology_testing.h: real per-GPU facts, the
// wiring between the copies stated by each test).
#include "analysis/topology/gpu_set.h"

#include <gtest/gtest.h>

#include <chrono>

#include "collectors/nvml/topology_testing.h"
#include "model/link_bandwidth.h"

namespace kraken::topology {
namespace {

using nvml::testing::kH100SmiCapture;
using nvml::testing::kL40sSmiCapture;
using nvml::testing::NodeFromSmiCapture;

void MarkUsed(NodeGpuTopology& node, std::initializer_list<int> used) {
  for (int g : used) node.gpus[static_cast<size_t>(g)].free = false;
}

TEST(GpuSet, LinkBandwidthFollowsThePublicSpecifications) {
  EXPECT_DOUBLE_EQ(PcieGbps(3, 16), 15.753846153846155);
  EXPECT_DOUBLE_EQ(PcieGbps(4, 16), 2 * PcieGbps(3, 16));
  EXPECT_DOUBLE_EQ(PcieGbps(5, 16), 4 * PcieGbps(3, 16));
  EXPECT_DOUBLE_EQ(PcieGbps(0, 16), 0);
  EXPECT_DOUBLE_EQ(NvlinkGbpsPerLink(NvlinkGeneration(9)), 25);  // H100: 900 GB/s / 18 links / 2 directions
  EXPECT_DOUBLE_EQ(NvlinkGbpsPerLink(NvlinkGeneration(7)), 25);  // A100: 600 / 12 / 2
  EXPECT_DOUBLE_EQ(PairGbps("NV12", 25, 31.5, 31.5), 300);
  EXPECT_DOUBLE_EQ(PairGbps("PIX", 25, 31.5, 15.75), 15.75);
  EXPECT_DOUBLE_EQ(PairGbps("SYS", 25, 31.5, 31.5), 15.75);
  EXPECT_DOUBLE_EQ(PairGbps("NVx", 25, 31.5, 31.5), 15.75);  // malformed: unknown path
}

TEST(GpuSet, H100CaptureIsAnNvswitchNodeOf450GbpsPairs) {
  NodeGpuTopology node = NodeFromSmiCapture(kH100SmiCapture, 8, nvml::testing::HgxNvswitch());
  ASSERT_EQ(node.gpus.size(), 8u);
  ASSERT_EQ(node.links.size(), 28u);
  // nvidia-smi nvlink -s lists 18 active links; through the NVSwitch every pair is NV18
  // = 18 x 25 GB/s.
  EXPECT_EQ(node.gpus[0].nvlinks, 18);
  EXPECT_EQ(node.gpus[0].numa_node, 0);
  EXPECT_EQ(node.gpus[0].cpu_count, 20);                   // topo -m: CPU affinity 0-19
  EXPECT_DOUBLE_EQ(node.gpus[0].pcie_gbps, PcieGbps(5, 16));  // -q: PCIe Gen 5, 16x
  EXPECT_EQ(node.links[0].path, "NV18");
  EXPECT_DOUBLE_EQ(node.links[0].gbps, 450);
  EXPECT_TRUE(node.HasNvlink());
  MarkUsed(node, {0, 2, 5});
  GpuSetChoice best = BestGpuSet(node, 4), blind = BlindGpuSet(node, 4);
  ASSERT_TRUE(best.found);
  EXPECT_TRUE(best.all_nvlink);
  // All-to-all through NVSwitch: every set is as good; the lowest indices win the tie.
  EXPECT_EQ(best.gpus, (std::vector<int>{1, 3, 4, 6}));
  EXPECT_EQ(blind.gpus, best.gpus);
  EXPECT_DOUBLE_EQ(best.bottleneck_gbps, 450);
  EXPECT_DOUBLE_EQ(best.total_gbps, 6 * 450);
  EXPECT_FALSE(BestGpuSet(node, 6).found);  // 5 free
}

TEST(GpuSet, L40sCaptureHasNoNvlink) {
  NodeGpuTopology node = NodeFromSmiCapture(kL40sSmiCapture, 4);
  ASSERT_EQ(node.gpus.size(), 4u);
  EXPECT_FALSE(node.HasNvlink());
  EXPECT_EQ(node.gpus[0].nvlinks, 0);
  EXPECT_DOUBLE_EQ(node.gpus[0].pcie_gbps, PcieGbps(4, 16));  // -q: PCIe Gen 4, 16x
  // The capture does not say how its copies would be wired: unknown is priced as SYS.
  EXPECT_EQ(node.links[0].path, "");
  EXPECT_DOUBLE_EQ(node.links[0].gbps, PcieGbps(4, 16) / 2);
}

TEST(GpuSet, OnAPcieTreeTheChosenSetStaysOnOneSocket) {
  NodeGpuTopology node = NodeFromSmiCapture(kL40sSmiCapture, 8, nvml::testing::TwoSocketPcieTree());
  MarkUsed(node, {1});
  // 4 GPUs: the lowest free indices 0,2,3,4 cross the sockets (SYS: 15.75 GB/s);
  // 4,5,6,7 stay on socket 1 (NODE and PIX: 31.5 GB/s), twice the bottleneck.
  GpuSetChoice blind = BlindGpuSet(node, 4), best = BestGpuSet(node, 4);
  EXPECT_EQ(blind.gpus, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_NEAR(blind.bottleneck_gbps, 15.75, 0.01);
  EXPECT_EQ(blind.numa_nodes, 2);
  EXPECT_EQ(best.gpus, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_NEAR(best.bottleneck_gbps, 31.51, 0.01);
  EXPECT_EQ(best.numa_nodes, 1);
  EXPECT_EQ(best.shared_switch_pairs, 2);
  // 2 GPUs: both choices get 31.5 GB/s, but 2,3 share a switch (PIX) where the blind
  // 0,2 go through the root complex (NODE).
  GpuSetChoice pair = BestGpuSet(node, 2), blind_pair = BlindGpuSet(node, 2);
  EXPECT_EQ(pair.gpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(blind_pair.gpus, (std::vector<int>{0, 2}));
  EXPECT_DOUBLE_EQ(pair.bottleneck_gbps, blind_pair.bottleneck_gbps);
  EXPECT_LT(pair.path_distance, blind_pair.path_distance);
}

TEST(GpuSet, LargeNodesUseTheGreedySearch) {
  nvml::testing::NodeWiring wiring;
  wiring.pcie_level = [](int a, int b) {
    return static_cast<int>(a / 4 == b / 4 ? NVML_TOPOLOGY_SINGLE : a / 12 == b / 12 ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM);
  };
  NodeGpuTopology node = NodeFromSmiCapture(kL40sSmiCapture, 24, wiring);
  MarkUsed(node, {0});
  // C(23, 12) = 1,352,078 sets: greedy. It still finds 12 GPUs on one socket (12..23).
  GpuSetChoice best = BestGpuSet(node, 12);
  ASSERT_TRUE(best.found);
  EXPECT_EQ(best.gpus.front(), 12);
  EXPECT_EQ(best.gpus.back(), 23);
  EXPECT_NEAR(best.bottleneck_gbps, 31.51, 0.01);
  EXPECT_EQ(FormatGpuSet({1, 3}), "1,3");
}

TEST(GpuSet, TheLargestAnnotatedNodeIsScoredInBoundedTime) {
  // 64 GPUs (the annotation's limit), half of them asked for: two sockets of 32, PCIe
  // switches of 8.
  nvml::testing::NodeWiring wiring;
  wiring.pcie_level = [](int a, int b) {
    return static_cast<int>(a / 8 == b / 8 ? NVML_TOPOLOGY_SINGLE : a / 32 == b / 32 ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM);
  };
  wiring.numa_node = [](int gpu) { return gpu / 32; };
  NodeGpuTopology node = NodeFromSmiCapture(kL40sSmiCapture, 64, wiring);
  ASSERT_EQ(node.links.size(), 64u * 63 / 2);
  auto started = std::chrono::steady_clock::now();
  GpuSetChoice best = BestGpuSet(node, 32);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(best.found);
  EXPECT_EQ(best.numa_nodes, 1);
  EXPECT_NEAR(best.bottleneck_gbps, 31.51, 0.01);
  EXPECT_LT(seconds, 2.0);  // 12 ms for the whole test on the 2 shared build cores
}

}  // namespace
}  // namespace kraken::topology
