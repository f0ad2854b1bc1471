// Placeholder while the policy is developed.
#include <cmath>

#include "analysis/pack/policy.h"

namespace kraken::pack {
namespace {

class KrakenPolicy final : public PackingPolicy {
 public:
  explicit KrakenPolicy(const PackProblem& problem) : fgd_(MakeFgdPolicy(problem)) {}
  std::string_view name() const override { return "Kraken"; }
  double Score(const ClusterState& state, int node, const PodShape& pod, PackRng& rng) const override {
    return fgd_->Score(state, node, pod, rng);
  }
  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng& rng) const override {
    return fgd_->SelectGpus(state, node, pod, rng);
  }
  ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const override {
    return fgd_->Explain(state, node, pod);
  }
  std::string Assumptions() const override { return "placeholder"; }

 private:
  std::unique_ptr<PackingPolicy> fgd_;
};

}  // namespace

std::unique_ptr<PackingPolicy> MakeKrakenPolicy(const PackProblem& problem) {
  return std::make_unique<KrakenPolicy>(problem);
}

}  // namespace kraken::pack
