// FGD's fragmentation measure: a hand-computed node, and the empty openb cluster, whose
// fragmentation the FGD paper's results put at 13.88-14.08% (arrived = 0).
#include "analysis/pack/fragment.h"

#include <gtest/gtest.h>

#include "analysis/pack/cluster_state.h"
#include "base/testing/test_data.h"
#include "importers/openb/openb_loader.h"

namespace kraken::pack {
namespace {

TypicalPod Shape(int64_t cpu, int32_t num, int32_t milli, double p, ModelMask models = kAnyModel) {
  TypicalPod t;
  t.cpu_milli = cpu;
  t.num_gpu = num;
  t.gpu_milli = milli;
  t.probability = p;
  t.models = models;
  return t;
}

TEST(FragmentTest, HandComputedNode) {
  // A: fits (CPU and a GPU with >= 500 free) -> only the 300-milli GPU is fragment.
  // B: CPU-only -> all 1300 idle milli. C: CPU short -> all 1300.
  FragmentMeter meter({Shape(1000, 1, 500, 0.5), Shape(500, 0, 0, 0.25), Shape(4000, 1, 1000, 0.25)});
  int16_t gpus[] = {1000, 300};
  NodeFree node{3000, gpus, 2, ModelMask{1}};
  EXPECT_DOUBLE_EQ(meter.NodeFragment(node), 0.5 * 300 + 0.25 * 1300 + 0.25 * 1300);
  EXPECT_EQ(meter.ShapeFragment(0, node), 300);
  EXPECT_EQ(meter.ShapeFragment(1, node), 1300);
  EXPECT_EQ(meter.ShapeFragment(2, node), 1300);
  // Two whole GPUs wanted but only one is free: all idle milli is fragment.
  FragmentMeter two({Shape(1000, 2, 1000, 1.0)});
  EXPECT_DOUBLE_EQ(two.NodeFragment(node), 1300);
  // A shape bound to another GPU model cannot use the node at all.
  FragmentMeter other({Shape(1000, 1, 500, 1.0, ModelMask{2})});
  EXPECT_DOUBLE_EQ(other.NodeFragment(node), 1300);
  // A node without GPUs has no fragment.
  EXPECT_DOUBLE_EQ(meter.NodeFragment(NodeFree{3000, nullptr, 0, 0}), 0);
}

TEST(FragmentTest, EmptyOpenbClusterIs13Point94Percent) {
  auto nodes = LoadOpenbNodes(testing::DataPath("alibaba-gpu-v2023/openb_node_list_gpu_node.csv"));
  auto pods = LoadOpenbPods(testing::DataPath("alibaba-gpu-v2023/openb_pod_list_default.csv"));
  ASSERT_TRUE(nodes.ok() && pods.ok());
  auto problem = PreparePackProblem(nodes->nodes, pods->pods);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  // 91 shapes in the trace; the 35 most frequent cover 95.26% of the pods.
  ASSERT_EQ(problem->typical.size(), 35u);
  int64_t covered = 0;
  for (const TypicalPod& t : problem->typical) covered += t.count;
  EXPECT_EQ(covered, 7766);
  const TypicalPod& top = problem->typical[0];
  EXPECT_EQ(top.cpu_milli, 3152);
  EXPECT_EQ(top.gpu_milli, 810);
  EXPECT_EQ(top.num_gpu, 1);
  EXPECT_EQ(top.count, 1047);
  EXPECT_NEAR(top.probability, 1047.0 / 7766.0, 1e-12);

  FragmentMeter meter(problem->typical);
  ClusterState empty(*problem, meter);
  const double pct = 100 * empty.total_fragment() / static_cast<double>(problem->gpu_capacity_milli);
  EXPECT_NEAR(empty.total_fragment() / 1000, 866.23, 0.01);  // GPUs of fragment
  EXPECT_NEAR(pct, 13.94, 0.01);
  EXPECT_GE(pct, 13.9);
  EXPECT_LE(pct, 14.1);
}

}  // namespace
}  // namespace kraken::pack
