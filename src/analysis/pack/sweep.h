// Many experiments (policies x seeds) and their medians over seeds, the statistic the FGD
// paper plots (Fig. 9a: the median over 10 seeds at each integer arrived %).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/pack/simulation.h"

namespace kraken::pack {

struct SweepOptions {
  std::vector<uint64_t> seeds = {42, 43, 44, 45, 46, 47, 48, 49, 50, 51};
  double tune_ratio = 1.3;
  int threads = 2;  // experiments run in parallel; 1 = on the calling thread
};

struct PolicySummary {
  std::string policy;
  // Per integer arrived %, the median over the seeds that reach it (mean of the two
  // middle values for an even count).
  std::vector<CurvePoint> median_curve;
  std::vector<double> unallocated_at_100_by_seed;  // NaN where a seed has no point at 100
  double median_unallocated_at_100 = 0;            // NaN when no seed has one
  double median_pods_failed = 0;
  double seconds = 0;  // wall time of this policy's experiments (summed over threads)
};

// Runs every (policy, seed) and summarises per policy, in the order given. Unknown
// policy names are an InvalidInput error.
Result<std::vector<PolicySummary>> RunSweep(const PackProblem& problem, const std::vector<std::string>& policies,
                                            const SweepOptions& options);

double Median(std::vector<double> values);

}  // namespace kraken::pack
