// FGD, Fragmentation Gradient Descent (Weng et al., ATC'23): place the pod where the
// node's expected GPU fragment (fragment.h) grows the least.
//   score = trunc(100 sigmoid((fragment_before - fragment_after) / 1000))
// A sharing pod is tried on every GPU it fits; the node's score is the best of them and
// the pod goes to the first GPU that reaches it. Whole-GPU pods take the free GPUs of
// lowest index (all equivalent); CPU-only pods only change the node's free CPU.
#include <cmath>
#include <cstdio>

#include "analysis/pack/policy.h"

namespace kraken::pack {
namespace {

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The node's free resources after the pod lands on `gpus`.
struct AfterPlacement {
  int16_t gpu_free[kMaxGpusPerNode];
  NodeFree free;
};

void Apply(const NodeState& n, const PodShape& pod, GpuMask gpus, AfterPlacement* after) {
  for (int32_t g = 0; g < n.gpu_count; ++g)
    after->gpu_free[g] = static_cast<int16_t>(n.gpu_free[g] - ((gpus >> g) & 1u ? pod.gpu_milli : 0));
  after->free = NodeFree{n.cpu_free - pod.cpu_milli, after->gpu_free, n.gpu_count, n.model_bit};
}

struct FgdChoice {
  double score = -1;
  GpuMask gpus = 0;
  double fragment_after = 0;
};

// Best GPU choice and its score; GPUs with the same free milli give the same result, so
// only the first of each is evaluated.
FgdChoice Choose(const ClusterState& state, int node, const PodShape& pod) {
  const NodeState& n = state.node(node);
  const FragmentMeter& meter = state.meter();
  AfterPlacement after;
  FgdChoice best;
  auto consider = [&](GpuMask gpus) {
    Apply(n, pod, gpus, &after);
    const double fragment = meter.NodeFragment(after.free);
    const double score = std::trunc(100 * Sigmoid((n.fragment - fragment) / 1000));
    if (score > best.score) best = {score, gpus, fragment};  // strict: the first of equals stays
  };
  if (pod.IsGpuSharing()) {
    int16_t tried[kMaxGpusPerNode];
    int32_t tried_count = 0;
    for (int32_t g = 0; g < n.gpu_count; ++g) {
      if (n.gpu_free[g] < pod.gpu_milli) continue;
      bool seen = false;
      for (int32_t t = 0; t < tried_count; ++t) seen |= tried[t] == n.gpu_free[g];
      if (seen) continue;
      tried[tried_count++] = n.gpu_free[g];
      consider(static_cast<GpuMask>(1u << g));
    }
  } else {
    consider(pod.num_gpu == 0 ? GpuMask{0} : SelectWholeGpus(n, pod.num_gpu));
  }
  return best;
}

class FgdPolicy final : public PackingPolicy {
 public:
  explicit FgdPolicy(const PackProblem& problem) : problem_(problem) {}

  std::string_view name() const override { return "FGD"; }

  double Score(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return Choose(state, node, pod).score;
  }

  GpuMask SelectGpus(const ClusterState& state, int node, const PodShape& pod, PackRng&) const override {
    return Choose(state, node, pod).gpus;
  }

  ScoreExplanation Explain(const ClusterState& state, int node, const PodShape& pod) const override {
    const NodeState& n = state.node(node);
    FgdChoice choice = Choose(state, node, pod);
    ScoreExplanation e;
    e.score = choice.score;
    e.gpus = choice.gpus;
    e.parts.push_back({"fragment before", n.fragment, "GPU milli, expectation over the typical pods"});
    e.parts.push_back({"fragment after", choice.fragment_after, "on the chosen GPUs"});
    e.parts.push_back(
        {"reduction / 1000", (n.fragment - choice.fragment_after) / 1000, "score = trunc(100 sigmoid(this))"});
    AfterPlacement after;
    Apply(n, pod, choice.gpus, &after);
    const FragmentMeter& meter = state.meter();
    size_t unchanged = 0;
    for (size_t m = 0; m < meter.typical().size(); ++m) {
      const TypicalPod& t = meter.typical()[m];
      const int64_t before = meter.ShapeFragment(m, n.Free());
      const int64_t later = meter.ShapeFragment(m, after.free);
      if (before == later) {
        ++unchanged;
        continue;
      }
      char note[96];
      std::snprintf(note, sizeof(note), "p=%.4f, milli %lld -> %lld", t.probability, static_cast<long long>(before),
                    static_cast<long long>(later));
      e.parts.push_back(
          {"fragment change, typical " + DescribeShape(t.cpu_milli, t.num_gpu, t.gpu_milli, t.models, problem_.models),
           t.probability * static_cast<double>(later - before), note});
    }
    e.parts.push_back({"typical shapes unchanged", static_cast<double>(unchanged), "their fragment stays the same"});
    return e;
  }

  std::string Assumptions() const override {
    return "FGD: typical pods = the most frequent (CPU, GPU milli, GPU count, model) shapes of the original pod list, "
           "CPU-only pods included, until they cover the popularity threshold (95%), renormalised; a shape's fragment "
           "is the idle GPU milli it cannot use (all of it when it does not fit); score = trunc(100 sigmoid(Δ/1000)); "
           "sharing pods go to the first GPU with the best score.";
  }

 private:
  const PackProblem& problem_;
};

}  // namespace

std::unique_ptr<PackingPolicy> MakeFgdPolicy(const PackProblem& problem) {
  return std::make_unique<FgdPolicy>(problem);
}

}  // namespace kraken::pack
