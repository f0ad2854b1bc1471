// Collects the passes of `kraken profile` into a Profile (one Series per entity, metric and
// source name) for --out, which writes it in the export JSON format.
#pragma once

#include <string>
#include <unordered_map>

#include "model/profile.h"
#include "model/sample_batch.h"

namespace kraken::profiling {

// The metadata of a profile kraken samples itself (`kraken profile`, profiling sessions):
// format "kraken-profile", this host, NVIDIA, `source` (the command or "pid N") and the
// sampling interval as an attribute.
ProfileMetadata SampledRunMetadata(const std::string& source, int64_t interval_ns);

class BatchProfileBuilder {
 public:
  void Add(const SampleBatch& batch);
  Profile& profile() { return profile_; }
  const Profile& profile() const { return profile_; }

 private:
  Profile profile_;
  std::unordered_map<std::string, size_t> series_index_;  // key -> index into profile_.series
};

}  // namespace kraken::profiling
