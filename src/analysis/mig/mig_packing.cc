#include "analysis/mig/mig_packing.h"

#include <algorithm>
#include <map>

namespace kraken::mig {
namespace {

using Counts = std::vector<int>;

struct Search {
  const std::vector<Counts>& feasible;
  std::map<Counts, std::pair<int, size_t>> memo;  // counts -> (GPUs, index of the first GPU's combination)

  int Solve(const Counts& c) {
    if (std::all_of(c.begin(), c.end(), [](int v) { return v == 0; })) return 0;
    auto it = memo.find(c);
    if (it != memo.end()) return it->second.first;
    int best = 1 << 30;
    size_t best_k = 0;
    Counts rest(c.size());
    // Some GPU holds an instance of the first profile still to place; the GPUs are
    // interchangeable, so let it be this one (keeps the search exact, cuts its branching).
    size_t first = 0;
    while (c[first] == 0) ++first;
    for (size_t k = 0; k < feasible.size(); ++k) {
      if (feasible[k][first] == 0) continue;
      bool fits = true;
      for (size_t p = 0; p < c.size() && fits; ++p) fits = feasible[k][p] <= c[p];
      if (!fits) continue;
      for (size_t p = 0; p < c.size(); ++p) rest[p] = c[p] - feasible[k][p];
      int n = 1 + Solve(rest);
      if (n < best) {
        best = n;
        best_k = k;
      }
    }
    memo[c] = {best, best_k};
    return best;
  }
};

int64_t StateSpace(const Counts& c) {
  int64_t product = 1;
  for (int v : c) {
    product *= v + 1;
    if (product > (int64_t{1} << 40)) break;
  }
  return product;
}

// Turns per-GPU profile counts into layouts, handing out the items of each profile in order.
PackedGpu Materialize(const MigGeometry& g, const Counts& k, std::vector<std::vector<int>>* queues) {
  std::vector<int> profiles;
  for (size_t p = 0; p < k.size(); ++p)
    for (int i = 0; i < k[p]; ++i) profiles.push_back(static_cast<int>(p));
  PackedGpu gpu;
  auto layout = PlaceProfiles(g, profiles);
  if (!layout) return gpu;  // cannot happen for a feasible combination
  gpu.layout = *layout;
  for (const MigPlacement& m : gpu.layout) {
    auto& queue = (*queues)[static_cast<size_t>(m.profile)];
    gpu.items.push_back(queue.back());
    queue.pop_back();
  }
  return gpu;
}

PackResult FirstFitDecreasing(const MigGeometry& g, const std::vector<int>& items) {
  std::vector<int> order(items.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return g.profiles[static_cast<size_t>(items[static_cast<size_t>(a)])].memory_slices >
           g.profiles[static_cast<size_t>(items[static_cast<size_t>(b)])].memory_slices;
  });
  PackResult result;
  result.exact = false;
  std::vector<std::vector<int>> gpu_profiles;
  std::vector<std::vector<int>> gpu_items;
  // A GPU that once refused a profile refuses it for good (GPUs only fill up), so each
  // profile's scan resumes at the first GPU that has not refused it: the same first fit in
  // O(items + GPUs x profiles) placements instead of O(items x GPUs) (200k rows took 10+ min).
  std::vector<size_t> first_open(g.profiles.size(), 0);
  for (int item : order) {
    int profile = items[static_cast<size_t>(item)];
    bool placed = false;
    size_t& b = first_open[static_cast<size_t>(profile)];
    for (; b < gpu_profiles.size(); ++b) {
      gpu_profiles[b].push_back(profile);
      if (PlaceProfiles(g, gpu_profiles[b])) {
        gpu_items[b].push_back(item);
        placed = true;
        break;
      }
      gpu_profiles[b].pop_back();
    }
    if (!placed) {
      gpu_profiles.push_back({profile});
      gpu_items.push_back({item});
    }
  }
  for (size_t b = 0; b < gpu_profiles.size(); ++b) {
    Counts k(g.profiles.size(), 0);
    std::vector<std::vector<int>> queues(g.profiles.size());
    for (size_t i = 0; i < gpu_items[b].size(); ++i) {
      ++k[static_cast<size_t>(gpu_profiles[b][i])];
      queues[static_cast<size_t>(gpu_profiles[b][i])].insert(queues[static_cast<size_t>(gpu_profiles[b][i])].begin(),
                                                             gpu_items[b][i]);
    }
    result.gpus.push_back(Materialize(g, k, &queues));
  }
  return result;
}

}  // namespace

PackResult PackMinGpus(const MigGeometry& g, const std::vector<int>& item_profiles, int64_t max_states) {
  Counts counts(g.profiles.size(), 0);
  for (int p : item_profiles) {
    if (p < 0 || static_cast<size_t>(p) >= g.profiles.size()) return {};
    ++counts[static_cast<size_t>(p)];
  }
  // The exact search recurses once per GPU of the plan: bounding the items bounds its depth
  // (58k workloads overflowed the stack).
  if (StateSpace(counts) > max_states || item_profiles.size() > kMaxExactPackItems)
    return FirstFitDecreasing(g, item_profiles);
  std::vector<Counts> feasible = FeasibleProfileCounts(g);
  Search search{feasible, {}};
  search.Solve(counts);
  PackResult result;
  result.states = static_cast<int64_t>(search.memo.size());
  // Items of each profile, handed out last-first so the first items land on the first GPU.
  std::vector<std::vector<int>> queues(g.profiles.size());
  for (size_t i = item_profiles.size(); i-- > 0;)
    queues[static_cast<size_t>(item_profiles[i])].push_back(static_cast<int>(i));
  Counts c = counts;
  while (std::any_of(c.begin(), c.end(), [](int v) { return v > 0; })) {
    const Counts& k = feasible[search.memo[c].second];
    result.gpus.push_back(Materialize(g, k, &queues));
    for (size_t p = 0; p < c.size(); ++p) c[p] -= k[p];
  }
  return result;
}

}  // namespace kraken::mig
