#include "app/latest_samples.h"

namespace kraken {

Result<std::vector<LatestSample>> ReadLatestSamples(ProfileStore& store, int64_t profile_id) {
  KRAKEN_ASSIGN_OR_RETURN(std::vector<StoredSeriesStats> stats, store.ListSeries(profile_id));
  std::vector<LatestSample> out;
  for (const StoredSeriesStats& s : stats) {
    if (s.metric == Metric::kOther || s.entity.pid >= 0 || s.samples == 0) continue;
    SeriesQuery query;
    query.profile_id = profile_id;
    query.metric = s.metric;
    query.source_name = s.source_name;
    query.entity.gpu_index = s.entity.gpu_index;
    query.entity.gpu_instance_id = s.entity.gpu_instance_id;
    query.start_ns = s.last_ns;
    query.end_ns = s.last_ns;
    KRAKEN_ASSIGN_OR_RETURN(std::vector<SeriesQueryResult> found, store.QuerySeries(query));
    for (const SeriesQueryResult& r : found) {
      if (r.series_id != s.series_id || r.samples.empty()) continue;
      out.push_back({s.entity, s.metric, r.samples.back().time_ns, r.samples.back().value, s.mean});
    }
  }
  return out;
}

Result<std::optional<StoredProfileInfo>> NewestLiveProfile(ProfileStore& store) {
  KRAKEN_ASSIGN_OR_RETURN(std::vector<StoredProfileInfo> infos, store.ListProfiles());
  std::optional<StoredProfileInfo> newest;
  for (StoredProfileInfo& info : infos)
    if (info.kind == "live" && (!newest || info.id > newest->id)) newest = std::move(info);
  return newest;
}

}  // namespace kraken
