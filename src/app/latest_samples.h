// The newest value of every GPU-level series of a stored profile (the cluster view and
// the live stream), read from the blocks' aggregates and one small range query per series.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/metrics.h"
#include "store/store.h"

namespace kraken {

struct LatestSample {
  SeriesEntity entity;
  Metric metric = Metric::kOther;
  TimeNs time_ns = 0;
  double value = 0;
  double mean = 0;  // over the whole profile
};

// Series of whole GPUs or MIG instances with a canonical metric (per-process ones are left out).
Result<std::vector<LatestSample>> ReadLatestSamples(ProfileStore& store, int64_t profile_id);

// The newest stored profile of kind "live", if any.
Result<std::optional<StoredProfileInfo>> NewestLiveProfile(ProfileStore& store);

}  // namespace kraken
