// The LP solver and the packing prices (dual prices of the cutting-stock LP).
#include "analysis/pack/packing_prices.h"

#include <gtest/gtest.h>

#include "analysis/pack/lp_simplex.h"
#include "base/testing/test_data.h"
#include "importers/openb/openb_loader.h"

namespace kraken::pack {
namespace {

TEST(LpSimplexTest, TextbookProblem) {
  // max 3x + 5y  s.t. x <= 4, 2y <= 12, 3x + 2y <= 18  ->  x = 2, y = 6, 36.
  LpSolution s = MaximizeLp({{1, 0}, {0, 2}, {3, 2}}, {4, 12, 18}, {3, 5});
  ASSERT_TRUE(s.bounded);
  EXPECT_NEAR(s.y[0], 2, 1e-9);
  EXPECT_NEAR(s.y[1], 6, 1e-9);
  EXPECT_NEAR(s.objective, 36, 1e-9);
}

TypicalPod Sharing(int32_t milli, double p) {
  TypicalPod t;
  t.cpu_milli = 1000;
  t.num_gpu = 1;
  t.gpu_milli = milli;
  t.probability = p;
  return t;
}

TEST(PackingPricesTest, TwoSizes) {
  // 60% of 400s and 40% of 600s: the tightest packing pairs every 600 with a 400 and the
  // rest of the 400s two by two: 0.4 + 0.1 = 0.5 GPUs per pod; each size is worth half
  // a GPU, and whole-GPU shapes are not part of the LP.
  TypicalPod whole = Sharing(1000, 0.5);
  PackingPrices prices = ComputePackingPrices({Sharing(400, 0.3), Sharing(600, 0.2), whole});
  ASSERT_EQ(prices.sizes, (std::vector<int32_t>{400, 600}));
  EXPECT_NEAR(prices.demand[0], 0.6, 1e-12);
  EXPECT_NEAR(prices.packed_gpus_per_pod, 0.5, 1e-9);
  EXPECT_NEAR(prices.Price(400), 0.5, 1e-9);
  EXPECT_NEAR(prices.Price(600), 0.5, 1e-9);
  EXPECT_DOUBLE_EQ(prices.gap_value[1000], 1.0);
  EXPECT_NEAR(prices.gap_value[399], 0.0, 1e-12);
  // Following a pattern loses nothing; leaving 300 milli that no size fits loses them.
  EXPECT_NEAR(prices.Loss(1000, 600), 0, 1e-6);
  EXPECT_NEAR(prices.Loss(600, 400), 0, 1e-6);
  EXPECT_NEAR(prices.Loss(700, 400), 0, 1e-6);   // 0.5 -> 0.5 + 0
  EXPECT_NEAR(prices.Loss(1000, 400), 0, 1e-6);  // 1 -> 0.5 + V(600) = 0.5
  // A size outside the typical set is worth what it displaces: 450 takes a 400's place.
  EXPECT_NEAR(prices.Price(450), 0.5, 1e-9);
  EXPECT_NEAR(prices.Loss(1000, 450), 0, 1e-6);   // 550 left still takes a 400
  EXPECT_NEAR(prices.Loss(800, 450), 500, 1e-6);  // 350 left: the second 400 is lost
}

TEST(PackingPricesTest, NoSharingShapes) {
  PackingPrices prices = ComputePackingPrices({Sharing(1000, 1.0)});
  EXPECT_TRUE(prices.sizes.empty());
  EXPECT_EQ(prices.Loss(1000, 500), 0);
}

TEST(PackingPricesTest, DefaultOpenbTrace) {
  auto nodes = LoadOpenbNodes(testing::DataPath("alibaba-gpu-v2023/openb_node_list_gpu_node.csv"));
  auto pods = LoadOpenbPods(testing::DataPath("alibaba-gpu-v2023/openb_pod_list_default.csv"));
  ASSERT_TRUE(nodes.ok() && pods.ok());
  auto problem = PreparePackProblem(nodes->nodes, pods->pods);
  ASSERT_TRUE(problem.ok());
  PackingPrices prices = ComputePackingPrices(problem->typical);
  // 11 sharing sizes among the 35 typical shapes (the two 810 and the two 470 and 320
  // shapes merge by size).
  ASSERT_EQ(prices.sizes, (std::vector<int32_t>{160, 220, 230, 320, 370, 460, 470, 550, 590, 650, 810}));
  EXPECT_NEAR(prices.packed_gpus_per_pod, 0.66198, 1e-5);
  EXPECT_NEAR(prices.Price(810), 1.0, 1e-9);  // an 810 takes a whole GPU in any packing
  EXPECT_NEAR(prices.Price(650), 2.0 / 3, 1e-9);
  EXPECT_NEAR(prices.Price(470), 0.5, 1e-9);             // two per GPU
  EXPECT_NEAR(prices.Price(320), 1.0 / 3, 1e-9);         // three per GPU, or with a 650
  EXPECT_NEAR(prices.Price(160), 0.0, 1e-9);             // only ever fills an 810's leftover
  EXPECT_NEAR(prices.Loss(530, 320), 1000.0 / 6, 1e-6);  // 320 into a 470's leftover strands 210
  EXPECT_NEAR(prices.Loss(350, 320), 0, 1e-6);           // 320 next to a 650
  EXPECT_NEAR(prices.Loss(190, 160), 0, 1e-6);           // 160 next to an 810
}

}  // namespace
}  // namespace kraken::pack
