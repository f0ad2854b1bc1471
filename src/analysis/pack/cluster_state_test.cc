// The fit filter and Place()'s refusals on a hand-built cluster.
#include "analysis/pack/cluster_state.h"

#include <gtest/gtest.h>

namespace kraken::pack {
namespace {

ClusterNode Node(const std::string& name, int64_t cpu, int64_t mem, int32_t gpus, const std::string& model) {
  return ClusterNode{name, cpu, mem, gpus, model};
}

PodRequest Pod(const std::string& name, int64_t cpu, int64_t mem, int32_t num, int32_t milli,
               std::vector<std::string> spec = {}) {
  PodRequest p;
  p.name = name;
  p.cpu_milli = cpu;
  p.memory_mib = mem;
  p.num_gpu = num;
  p.gpu_milli = milli;
  p.gpu_spec = std::move(spec);
  return p;
}

class ClusterStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto prepared = PreparePackProblem(
        {Node("a", 8000, 16000, 2, "T4"), Node("b", 4000, 8000, 1, "V100M32"), Node("c", 10000, 20000, 0, "")},
        {Pod("p0", 1000, 1000, 1, 600), Pod("p1", 1000, 1000, 2, 1000), Pod("p2", 500, 500, 0, 0),
         Pod("p3", 1000, 1000, 1, 300, {"V100M32"})});
    ASSERT_TRUE(prepared.ok()) << prepared.status().message();
    problem_ = std::move(prepared).value();
    meter_ = std::make_unique<FragmentMeter>(problem_.typical);
    state_ = std::make_unique<ClusterState>(problem_, *meter_);
  }

  PodShape Shape(const std::string& name) const {
    for (size_t i = 0; i < problem_.pods.size(); ++i)
      if (problem_.pods[i].name == name) return problem_.shapes[static_cast<size_t>(problem_.pod_shape[i])];
    return {};
  }

  PackProblem problem_;
  std::unique_ptr<FragmentMeter> meter_;
  std::unique_ptr<ClusterState> state_;
};

TEST_F(ClusterStateTest, SharingPodsShareOneGpuWithoutOverAllocating) {
  const PodShape share = Shape("p0");  // 600 milli
  EXPECT_EQ(problem_.gpu_capacity_milli, 3000);
  ASSERT_TRUE(state_->Place(0, share, 0b01).ok());
  EXPECT_EQ(state_->node(0).gpu_free[0], 400);
  EXPECT_EQ(state_->node(0).max_gpu_free, 1000);
  EXPECT_EQ(state_->node(0).whole_free_gpus, 1);
  EXPECT_EQ(state_->allocated_gpu_milli(), 600);
  // A second 600 does not fit GPU 0 any more: refused, and nothing changes.
  Status refused = state_->Place(0, share, 0b01);
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), StatusCode::kInternal);
  EXPECT_EQ(state_->node(0).cpu_free, 7000);
  EXPECT_EQ(state_->node(0).gpu_free[0], 400);
  // It fits GPU 1; then the node has no GPU with 600 free.
  EXPECT_TRUE(state_->Fits(0, share));
  ASSERT_TRUE(state_->Place(0, share, 0b10).ok());
  EXPECT_FALSE(state_->Fits(0, share));
  // A sharing pod never spans two GPUs.
  EXPECT_FALSE(state_->Place(1, share, 0b11).ok());
}

TEST_F(ClusterStateTest, MultiGpuPodsNeedWholeFreeGpus) {
  const PodShape whole2 = Shape("p1");
  EXPECT_TRUE(state_->Fits(0, whole2));
  EXPECT_FALSE(state_->Fits(1, whole2));  // one GPU only
  EXPECT_FALSE(state_->Fits(2, whole2));  // CPU-only node
  ASSERT_TRUE(state_->Place(0, Shape("p0"), 0b01).ok());
  EXPECT_FALSE(state_->Fits(0, whole2));  // GPU 0 is shared now
  EXPECT_FALSE(state_->Place(0, whole2, 0b11).ok());
  EXPECT_FALSE(state_->Place(0, whole2, 0b10).ok());  // one GPU for a two-GPU pod
}

TEST_F(ClusterStateTest, GpuModelConstraintAndCpuOnlyPods) {
  const PodShape v100 = Shape("p3");
  EXPECT_FALSE(state_->Fits(0, v100));  // T4 node
  EXPECT_TRUE(state_->Fits(1, v100));
  EXPECT_FALSE(state_->Place(0, v100, 0b01).ok());
  const PodShape cpu = Shape("p2");
  EXPECT_TRUE(state_->Fits(2, cpu));
  EXPECT_FALSE(state_->Place(2, cpu, 0b01).ok());  // a CPU-only pod gets no GPU
  ASSERT_TRUE(state_->Place(2, cpu, 0).ok());
  EXPECT_EQ(state_->node(2).cpu_free, 9500);
  EXPECT_EQ(state_->node(2).memory_free, 19500);
}

TEST_F(ClusterStateTest, CpuAndMemoryAreNeverOverAllocated) {
  PodShape big = Shape("p2");
  big.cpu_milli = 4000;
  big.memory_mib = 8001;  // node b has 8000 MiB
  EXPECT_FALSE(state_->Fits(1, big));
  EXPECT_FALSE(state_->Place(1, big, 0).ok());
  big.memory_mib = 8000;
  ASSERT_TRUE(state_->Place(1, big, 0).ok());
  EXPECT_EQ(state_->node(1).cpu_free, 0);
  EXPECT_FALSE(state_->Place(1, Shape("p2"), 0).ok());
  // The fragment total follows the nodes' fragments.
  double sum = 0;
  for (int i = 0; i < state_->size(); ++i) sum += state_->node(i).fragment;
  EXPECT_NEAR(state_->total_fragment(), sum, 1e-9);
}

}  // namespace
}  // namespace kraken::pack
