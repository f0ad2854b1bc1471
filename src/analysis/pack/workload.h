// The order in which one experiment submits pods, and its node ranks, following the FGD
// paper's simulator (all from one seeded PackRng, in this order):
//   1. the pods, sorted by name, are shuffled (Fisher-Yates);
//   2. "tuning" to tune_ratio x the cluster's GPU capacity: below it, pods are drawn
//      uniformly with replacement from the original list and appended as clones until the
//      first clone that would pass the target (the reference compares the total plus the
//      clone's per-GPU milli, not its total milli; kept as is); above it, random pods are
//      removed until the total is at most the target;
//   3. a random rank per node: equal scores go to the node of lowest rank (the reference
//      prefixes node names with a seeded permutation and picks the smallest name).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/pack/pack_problem.h"

namespace kraken::pack {

struct Arrival {
  std::vector<int32_t> pods;           // indexes into PackProblem::pods, clones repeat them
  int64_t clones = 0;                  // appended by tuning up
  int64_t removed = 0;                 // removed by tuning down
  std::vector<int32_t> nodes_by_rank;  // node indexes, rank 0 first
};

// tune_ratio <= 0 keeps the list as it is (shuffled).
Arrival BuildArrival(const PackProblem& problem, uint64_t seed, double tune_ratio);

}  // namespace kraken::pack
