// The headline figures the profile list shows (workload type, bound, GPU utilization,
// disaggregation score), computed from a stored profile once and cached: a committed
// profile never changes, so a cached entry is never stale (a deleted id is simply not
// listed any more).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "model/profile.h"

namespace kraken::server {

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

class ProfileFactsCache {
 public:
  std::optional<ProfileFacts> Find(int64_t id) const;
  void Put(int64_t id, const ProfileFacts& facts);

 private:
  mutable std::mutex mutex_;
  std::map<int64_t, ProfileFacts> facts_;
};

}  // namespace kraken::server
