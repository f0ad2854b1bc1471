#include "analysis/pack/policy.h"

#include "base/text.h"

namespace kraken::pack {

GpuMask SelectWholeGpus(const NodeState& node, int32_t count) {
  GpuMask mask = 0;
  for (int32_t g = 0; g < node.gpu_count && count > 0; ++g) {
    if (node.gpu_free[g] == kMilliPerGpu) {
      mask |= static_cast<GpuMask>(1u << g);
      --count;
    }
  }
  return count == 0 ? mask : 0;
}

GpuMask SelectBestFitGpus(const NodeState& node, const PodShape& pod) {
  if (pod.num_gpu == 0) return 0;
  if (!pod.IsGpuSharing()) return SelectWholeGpus(node, pod.num_gpu);
  int best = -1;
  for (int32_t g = 0; g < node.gpu_count; ++g)
    if (node.gpu_free[g] >= pod.gpu_milli && (best < 0 || node.gpu_free[g] < node.gpu_free[best])) best = g;
  return best < 0 ? 0 : static_cast<GpuMask>(1u << best);
}

GpuMask SelectRandomGpus(const NodeState& node, const PodShape& pod, PackRng& rng) {
  if (pod.num_gpu == 0) return 0;
  if (!pod.IsGpuSharing()) return SelectWholeGpus(node, pod.num_gpu);
  // Reservoir sampling over the GPUs that fit: each is kept with probability 1/k.
  int chosen = -1;
  uint64_t seen = 0;
  for (int32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_free[g] < pod.gpu_milli) continue;
    ++seen;
    if (UniformBelow(rng, seen) == 0) chosen = g;
  }
  return chosen < 0 ? 0 : static_cast<GpuMask>(1u << chosen);
}

const std::vector<std::string>& PolicyNames() {
  static const std::vector<std::string> kNames = {"Random",  "DotProd", "GpuClustering", "GpuPacking",
                                                  "BestFit", "FGD",     "Kraken"};
  return kNames;
}

std::unique_ptr<PackingPolicy> MakePolicy(std::string_view name, const PackProblem& problem) {
  if (EqualsIgnoreCase(name, "Random")) return MakeRandomPolicy();
  if (EqualsIgnoreCase(name, "DotProd")) return MakeDotProductPolicy();
  if (EqualsIgnoreCase(name, "GpuClustering")) return MakeGpuClusteringPolicy();
  if (EqualsIgnoreCase(name, "GpuPacking")) return MakeGpuPackingPolicy();
  if (EqualsIgnoreCase(name, "BestFit")) return MakeBestFitPolicy();
  if (EqualsIgnoreCase(name, "FGD")) return MakeFgdPolicy(problem);
  if (EqualsIgnoreCase(name, "Kraken")) return MakeKrakenPolicy(problem);
  return nullptr;
}

}  // namespace kraken::pack
