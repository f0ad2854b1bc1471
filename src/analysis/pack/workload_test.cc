// Arrival order and tuning on the real openb pod lists.
#include "analysis/pack/workload.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/testing/test_data.h"
#include "importers/openb/openb_loader.h"

namespace kraken::pack {
namespace {

PackProblem Load(const std::string& pods_file) {
  auto nodes = LoadOpenbNodes(testing::DataPath("alibaba-gpu-v2023/openb_node_list_gpu_node.csv"));
  auto pods = LoadOpenbPods(testing::DataPath("alibaba-gpu-v2023/" + pods_file));
  EXPECT_TRUE(nodes.ok() && pods.ok());
  auto problem = PreparePackProblem(nodes->nodes, pods->pods);
  EXPECT_TRUE(problem.ok());
  return std::move(problem).value();
}

int64_t Request(const PackProblem& problem, const Arrival& arrival) {
  int64_t total = 0;
  for (int32_t p : arrival.pods) total += problem.pods[static_cast<size_t>(p)].TotalGpuMilli();
  return total;
}

TEST(WorkloadTest, TunesTheDefaultListUpTo130PercentWithClones) {
  PackProblem problem = Load("openb_pod_list_default.csv");
  ASSERT_EQ(problem.gpu_capacity_milli, 6'212'000);
  ASSERT_EQ(problem.pod_gpu_request_milli, 6'086'800);
  Arrival a = BuildArrival(problem, 42, 1.3);
  // The shuffled originals come first, each once; clones follow.
  std::vector<int32_t> originals(a.pods.begin(), a.pods.begin() + 8152);
  std::sort(originals.begin(), originals.end());
  for (int32_t i = 0; i < 8152; ++i) ASSERT_EQ(originals[static_cast<size_t>(i)], i);
  EXPECT_EQ(static_cast<int64_t>(a.pods.size()), 8152 + a.clones);
  EXPECT_GT(a.clones, 2000);
  const int64_t target = 8'075'600;  // 1.3 x 6,212,000
  const int64_t total = Request(problem, a);
  EXPECT_LE(total, target + 7000);  // the last clone may pass by its extra GPUs (reference rule)
  EXPECT_GT(total, target - 1000);
  EXPECT_EQ(a.removed, 0);
  // Node ranks are a permutation; the same seed gives the same arrival.
  std::vector<int32_t> ranks = a.nodes_by_rank;
  std::sort(ranks.begin(), ranks.end());
  for (int32_t i = 0; i < 1213; ++i) ASSERT_EQ(ranks[static_cast<size_t>(i)], i);
  Arrival again = BuildArrival(problem, 42, 1.3);
  EXPECT_EQ(again.pods, a.pods);
  EXPECT_EQ(again.nodes_by_rank, a.nodes_by_rank);
  EXPECT_NE(BuildArrival(problem, 43, 1.3).pods, a.pods);
}

TEST(WorkloadTest, TunesMultiGpu50DownByRemovingPods) {
  PackProblem problem = Load("openb_pod_list_multigpu50.csv");
  ASSERT_EQ(problem.pod_gpu_request_milli, 11'358'800);  // 183% of capacity
  Arrival a = BuildArrival(problem, 42, 1.3);
  EXPECT_EQ(a.clones, 0);
  EXPECT_GT(a.removed, 1000);
  EXPECT_EQ(static_cast<int64_t>(a.pods.size()) + a.removed, 9061);
  EXPECT_LE(Request(problem, a), 8'075'600);
  EXPECT_GT(Request(problem, a), 8'075'600 - 8000);
}

TEST(WorkloadTest, NoTuningKeepsTheShuffledList) {
  PackProblem problem = Load("openb_pod_list_default.csv");
  Arrival a = BuildArrival(problem, 7, 0);
  EXPECT_EQ(a.pods.size(), 8152u);
  EXPECT_EQ(Request(problem, a), 6'086'800);
}

}  // namespace
}  // namespace kraken::pack
