// Random: a uniformly random node among those that fit (the reference picks one in
// PreScore and gives it the only non-zero score), then a random GPU that fits.
#include "analysis/pack/policy.h"

namespace kraken::pack {
namespace {

class RandomPolicy final : public PackingPolicy {
 public:
  std::string_view name() const override { return "Random"; }
  bool cacheable() const override { return false; }

  // An independent uniform draw per feasible node: the largest one is a uniformly
  // random feasible node.
  double Score(const ClusterState&, int, const PodShape&, PackRng& rng) const override { return UniformUnit(rng); }

  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng& rng) const override {
    return SelectRandomGpus(state.node(node), pod, rng);
  }

  ScoreExplanation Explain(const ClusterState&, int, const PodShape&) const override {
    ScoreExplanation e;  // no GPUs named: they are drawn at placement
    e.parts.push_back({"random draw", 0, "each feasible node is equally likely; the GPU is drawn at random too"});
    return e;
  }

  std::string Assumptions() const override {
    return "Random: every node that passes the fit filter is equally likely; a sharing pod gets a uniformly random "
           "GPU among those with enough free milli (gpusel=random).";
  }
};

}  // namespace

std::unique_ptr<PackingPolicy> MakeRandomPolicy() { return std::make_unique<RandomPolicy>(); }

}  // namespace kraken::pack
