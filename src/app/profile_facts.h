// The headline figures a profile listing shows (workload type, bound, GPU utilization,
// disaggregation score): the server's profile list and single profile, from one path.
#pragma once

#include <optional>
#include <string>

#include "model/profile.h"

namespace kraken {

struct ProfileFacts {
  std::string workload_type = "unknown";  // training, inference, unknown
  // compute, memory, latency or communication: the largest share of kernel time; none
  // without classified kernels.
  std::optional<std::string> bound;
  std::optional<double> gpu_util;      // 0..1, when measured
  std::optional<double> disagg_score;  // 0..1 (docs/disaggregation.md), default links and price
};

// Type, bound and score from the first workload the profile yields (one per GPU for sampled
// profiles); utilization is the mean over all of them.
ProfileFacts ComputeProfileFacts(const Profile& profile);

}  // namespace kraken
