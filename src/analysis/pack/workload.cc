#include "analysis/pack/workload.h"

#include <numeric>

#include "analysis/pack/rng.h"

namespace kraken::pack {
namespace {

void Shuffle(std::vector<int32_t>& items, PackRng& rng) {
  for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[UniformBelow(rng, i)]);
}

}  // namespace

Arrival BuildArrival(const PackProblem& problem, uint64_t seed, double tune_ratio) {
  PackRng rng(seed);
  Arrival arrival;
  arrival.pods.resize(problem.pods.size());
  std::iota(arrival.pods.begin(), arrival.pods.end(), 0);
  Shuffle(arrival.pods, rng);

  const double target = tune_ratio * static_cast<double>(problem.gpu_capacity_milli);
  int64_t total = problem.pod_gpu_request_milli;
  // Without any GPU request there is nothing to tune (and no clone could ever stop it).
  if (tune_ratio > 0 && total > 0) {
    const uint64_t originals = problem.pods.size();
    if (static_cast<double>(total) < target) {
      while (true) {
        const auto index = static_cast<int32_t>(UniformBelow(rng, originals));
        const PodRequest& clone = problem.pods[static_cast<size_t>(index)];
        if (static_cast<double>(total + clone.gpu_milli) > target) break;
        total += clone.TotalGpuMilli();
        arrival.pods.push_back(index);
        ++arrival.clones;
      }
    } else {
      while (static_cast<double>(total) > target && !arrival.pods.empty()) {
        const size_t at = UniformBelow(rng, arrival.pods.size());
        total -= problem.pods[static_cast<size_t>(arrival.pods[at])].TotalGpuMilli();
        arrival.pods.erase(arrival.pods.begin() + static_cast<std::ptrdiff_t>(at));
        ++arrival.removed;
      }
    }
  }

  arrival.nodes_by_rank.resize(problem.nodes.size());
  std::iota(arrival.nodes_by_rank.begin(), arrival.nodes_by_rank.end(), 0);
  Shuffle(arrival.nodes_by_rank, rng);
  return arrival;
}

}  // namespace kraken::pack
