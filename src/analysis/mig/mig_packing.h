// Packing MIG instances onto the fewest GPUs. Only how many instances of each profile
// there are matters, so the search runs over count vectors: the fewest GPUs for counts c
// is 1 + the fewest for c - k, over every combination k that fits one GPU
// (FeasibleProfileCounts) with k <= c. Memoised, this is exact; inputs whose state space
// is too large, or that have more than kMaxExactPackItems items, fall back to first-fit
// decreasing and say so.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/mig/mig_placement.h"
#include "model/mig_catalog.h"

namespace kraken::mig {

struct PackedGpu {
  std::vector<MigPlacement> layout;
  std::vector<int> items;  // input item index of each placement, aligned with layout
};

struct PackResult {
  bool exact = true;  // false when first-fit decreasing was used
  int64_t states = 0; // count vectors the exact search visited
  std::vector<PackedGpu> gpus;
};

// Above this many items the exact search is not tried (its recursion depth grows with the
// number of GPUs): first-fit decreasing, reported as not exact.
inline constexpr size_t kMaxExactPackItems = 2048;

// `item_profiles[i]` is the profile index of item i.
PackResult PackMinGpus(const MigGeometry& geometry, const std::vector<int>& item_profiles,
                       int64_t max_states = 200'000);

}  // namespace kraken::mig
