// GET /api/v1/cluster: the store's live profiles as a fleet of GPUs over time. The agent
// commits one live profile per interval (5 min by default), so a GPU appears in many of
// them; it is one row here (keyed by host, GPU index and MIG instance), with the newest
// values, the sample-weighted mean over every profile, and one row of a GPU x time
// utilization heatmap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "store/store.h"

namespace kraken {

struct ClusterViewSettings {
  int64_t threshold_pct = 30;  // mean utilization below which a GPU is a pooling candidate
  size_t bins = 60;            // heatmap columns over the whole span of the live profiles
};

// Limits of ?bins= (a column per pixel of a wide screen at most).
inline constexpr size_t kMaxClusterBins = 600;

// {"gpus": [{hostname, gpu_index, gpu_instance_id, gpu_uuid, gpu_name, profile_id (the
// newest holding it), profiles, first_ns, last_ns, time_ns, gpu_util_pct, fb_used_bytes,
// power_w, mean_gpu_util_pct}], "heatmap": {"metric", "start_ns", "bin_ns", "bins",
// "rows": [{"gpu": index into gpus, "values": [mean % per bin, or null]}]},
// "pooling_candidates": [...], "threshold_pct"}.
Result<std::string> RenderClusterView(ProfileStore& store, const ClusterViewSettings& settings);

}  // namespace kraken
