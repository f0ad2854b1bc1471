// Collects the passes of `kraken profile` into a Profile (one Series per entity, metric and
// source name) for --out, which writes it in the export JSON format.
#pragma once

#include <string>
#include <unordered_map>

#include "model/profile.h"
#include "model/sample_batch.h"

namespace kraken::profiling {

class BatchProfileBuilder {
 public:
  void Add(const SampleBatch& batch);
  Profile& profile() { return profile_; }

 private:
  Profile profile_;
  std::unordered_map<std::string, size_t> series_index_;  // key -> index into profile_.series
};

}  // namespace kraken::profiling
