// Each policy's score on hand-built states, computed by hand from its definition.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "analysis/pack/policy.h"

namespace kraken::pack {
namespace {

PodRequest Pod(const std::string& name, int64_t cpu, int32_t num, int32_t milli) {
  PodRequest p;
  p.name = name;
  p.cpu_milli = cpu;
  p.memory_mib = 1024;
  p.num_gpu = num;
  p.gpu_milli = milli;
  return p;
}

class PoliciesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto prepared = PreparePackProblem(
        {ClusterNode{"n8", 96000, 393216, 8, "G2"}, ClusterNode{"n2", 64000, 262144, 2, "P100"}},
        {Pod("cpu", 4000, 0, 0), Pod("share200", 2000, 1, 200), Pod("share400", 4000, 1, 400),
         Pod("share700", 6000, 1, 700), Pod("whole", 12000, 1, 1000), Pod("whole2", 24000, 2, 1000)});
    ASSERT_TRUE(prepared.ok()) << prepared.status().message();
    problem_ = std::move(prepared).value();
    meter_ = std::make_unique<FragmentMeter>(problem_.typical);
    state_ = std::make_unique<ClusterState>(problem_, *meter_);
  }
  PodShape Shape(const std::string& name) const {
    for (size_t i = 0; i < problem_.pods.size(); ++i)
      if (problem_.pods[i].name == name) return problem_.shapes[static_cast<size_t>(problem_.pod_shape[i])];
    ADD_FAILURE() << name;
    return {};
  }
  double Score(const std::string& policy, int node, const std::string& pod) {
    auto p = MakePolicy(policy, problem_);
    return p->Score(*state_, node, Shape(pod), rng_);
  }
  void PlaceShare700OnGpu0() { ASSERT_TRUE(state_->Place(0, Shape("share700"), 0b1).ok()); }

  PackProblem problem_;
  std::unique_ptr<FragmentMeter> meter_;
  std::unique_ptr<ClusterState> state_;
  PackRng rng_{1};
};

TEST_F(PoliciesTest, NamesAndFactory) {
  EXPECT_EQ(PolicyNames().size(), 7u);
  for (const std::string& name : PolicyNames()) {
    auto p = MakePolicy(name, problem_);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->name(), name);
    EXPECT_FALSE(p->Assumptions().empty());
  }
  EXPECT_NE(MakePolicy("fgd", problem_), nullptr);
  EXPECT_EQ(MakePolicy("tetris", problem_), nullptr);
  EXPECT_FALSE(MakePolicy("Random", problem_)->cacheable());
}

TEST_F(PoliciesTest, BestFitAndDotProduct) {
  // 12000m CPU + 1 GPU on n8: left 84000/128000 x 0.5 + 7000/8000 x 0.5 = 0.765625 -> 23.
  EXPECT_EQ(Score("BestFit", 0, "whole"), 23);
  // On n2: 52000/128000 x 0.5 + 1000/8000 x 0.5 = 0.265625 -> 73 (fuller is better).
  EXPECT_EQ(Score("BestFit", 1, "whole"), 73);
  // n8: (0.75, 1) . (0.09375, 0.125) / 2 = 0.09765625 -> trunc(90.23) = 90.
  EXPECT_EQ(Score("DotProd", 0, "whole"), 90);
  // n2: (0.5, 0.25) . (0.09375, 0.125) / 2 = 0.0390625 -> 96.
  EXPECT_EQ(Score("DotProd", 1, "whole"), 96);
}

TEST_F(PoliciesTest, GpuPackingBands) {
  EXPECT_EQ(Score("GpuPacking", 0, "share200"), 25);  // all 8 GPUs free: 33 - 8
  EXPECT_EQ(Score("GpuPacking", 1, "share200"), 31);  // 33 - 2
  EXPECT_EQ(Score("GpuPacking", 0, "cpu"), 0);
  PlaceShare700OnGpu0();
  EXPECT_EQ(Score("GpuPacking", 0, "share200"), 97);  // shared GPU with 300 free: 100 - 30 / 10
  EXPECT_EQ(Score("GpuPacking", 0, "whole"), 49);     // one whole GPU on a node in use: 50 - 1
  EXPECT_EQ(Score("GpuPacking", 0, "whole2"), 48);
}

TEST_F(PoliciesTest, GpuClusteringBands) {
  EXPECT_EQ(Score("GpuClustering", 0, "share200"), 25);  // idle node: 25 + 25 x 0 / 8000
  EXPECT_EQ(Score("GpuClustering", 1, "share200"), 43);  // 25 + 25 x 6000 / 8000 (integer)
  EXPECT_EQ(Score("GpuClustering", 0, "cpu"), 0);
  PlaceShare700OnGpu0();
  EXPECT_EQ(Score("GpuClustering", 0, "share200"), 77);  // only sharing pods: 75 + 25 x 700 / 8000
  EXPECT_EQ(Score("GpuClustering", 0, "whole"), 2);      // other class only: 0 + 2
}

TEST_F(PoliciesTest, GpuSelection) {
  PlaceShare700OnGpu0();
  const NodeState& n8 = state_->node(0);
  EXPECT_EQ(SelectBestFitGpus(n8, Shape("share200")), 0b1);   // the 300 left on GPU 0
  EXPECT_EQ(SelectBestFitGpus(n8, Shape("share400")), 0b10);  // lowest index of the free ones
  EXPECT_EQ(SelectBestFitGpus(n8, Shape("whole2")), 0b110);
  EXPECT_EQ(SelectBestFitGpus(n8, Shape("cpu")), 0);
  for (int i = 0; i < 50; ++i) {
    GpuMask g = SelectRandomGpus(n8, Shape("share400"), rng_);
    EXPECT_EQ(std::popcount(static_cast<unsigned>(g)), 1);
    EXPECT_NE(g, 0b1);  // GPU 0 has only 300 free
  }
}

TEST_F(PoliciesTest, FgdScoreMatchesItsParts) {
  PlaceShare700OnGpu0();
  auto fgd = MakePolicy("FGD", problem_);
  for (const char* pod : {"share200", "share400", "whole", "cpu"}) {
    ScoreExplanation e = fgd->Explain(*state_, 0, Shape(pod));
    ASSERT_GE(e.parts.size(), 3u);
    EXPECT_EQ(e.parts[0].value, state_->node(0).fragment);
    const double reduction = (e.parts[0].value - e.parts[1].value) / 1000;
    EXPECT_EQ(e.score, std::trunc(100 / (1 + std::exp(-reduction)))) << pod;
    EXPECT_EQ(fgd->Score(*state_, 0, Shape(pod), rng_), e.score) << pod;
  }
  // The 200 goes into the 300 left on GPU 0 (it fits no other typical shape there).
  EXPECT_EQ(fgd->SelectGpus(*state_, 0, Shape("share200"), rng_), 0b1);
}

TEST_F(PoliciesTest, KrakenCostIsTheSumOfItsParts) {
  PlaceShare700OnGpu0();
  auto kraken = MakePolicy("Kraken", problem_);
  for (const char* pod : {"share200", "share400", "whole", "whole2", "cpu"}) {
    ScoreExplanation e = kraken->Explain(*state_, 0, Shape(pod));
    double stranded_change = e.parts[1].value - e.parts[0].value, loss = 0, open = 0, cost = e.parts.back().value;
    for (const ScorePart& part : e.parts) {
      if (part.name == "packing loss") loss = part.value;
      if (part.name == "opens a whole GPU") open = part.value;
    }
    EXPECT_NEAR(cost, stranded_change + loss + open, 1e-9) << pod;
    EXPECT_EQ(e.score, std::floor(-cost / 40)) << pod;
    EXPECT_EQ(kraken->Score(*state_, 0, Shape(pod), rng_), e.score) << pod;
  }
  // A 200 fills the 300 left by the 700 rather than opening a whole GPU (+50 milli).
  EXPECT_EQ(kraken->SelectGpus(*state_, 0, Shape("share200"), rng_), 0b1);
}

}  // namespace
}  // namespace kraken::pack
