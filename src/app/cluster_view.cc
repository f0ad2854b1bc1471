#include "app/cluster_view.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "app/latest_samples.h"
#include "base/json_writer.h"

namespace kraken {
namespace {

// One GPU of the fleet: host, GPU index, MIG instance. Not the UUID: masked captures and
// some virtual GPUs report one all-zero UUID for every GPU of a node.
using GpuKey = std::tuple<std::string, int32_t, int32_t>;

GpuKey KeyOf(const SeriesEntity& e) { return {e.hostname, e.gpu_index, e.gpu_instance_id}; }

// A utilization series of one live profile, for the heatmap.
struct UtilSeries {
  int64_t profile_id = 0;
  StoredSeriesStats stats;
};

struct GpuRow {
  SeriesEntity entity;
  int64_t newest_profile = 0;
  TimeNs newest_ns = std::numeric_limits<TimeNs>::min();
  TimeNs first_ns = std::numeric_limits<TimeNs>::max();
  std::vector<int64_t> profiles;
  double util_sum = 0;  // mean x samples over every profile
  int64_t util_samples = 0;
  std::map<Metric, double> latest;
  std::vector<UtilSeries> util;
};

// Every live profile's GPU-level series, folded into one row per GPU.
Result<std::map<GpuKey, GpuRow>> CollectGpus(ProfileStore& store) {
  KRAKEN_ASSIGN_OR_RETURN(std::vector<StoredProfileInfo> infos, store.ListProfiles());
  std::map<GpuKey, GpuRow> gpus;
  for (const StoredProfileInfo& info : infos) {
    if (info.kind != "live") continue;
    auto stats = store.ListSeries(info.id);
    if (!stats.ok()) continue;  // deleted since it was listed
    for (const StoredSeriesStats& s : *stats) {
      if (s.metric == Metric::kOther || s.entity.pid >= 0 || s.samples == 0) continue;
      GpuRow& row = gpus[KeyOf(s.entity)];
      if (row.profiles.empty() || row.profiles.back() != info.id) row.profiles.push_back(info.id);
      if (s.last_ns > row.newest_ns) {
        row.newest_ns = s.last_ns;
        row.newest_profile = info.id;
        row.entity = s.entity;
      }
      row.first_ns = std::min(row.first_ns, s.first_ns);
      if (s.metric != Metric::kGpuUtilPct) continue;
      row.util_sum += s.mean * static_cast<double>(s.samples);
      row.util_samples += s.samples;
      row.util.push_back({info.id, s});
    }
  }
  // The newest values: read only from the profile that holds each GPU's newest sample.
  std::map<int64_t, std::vector<LatestSample>> latest_by_profile;
  for (auto& [key, row] : gpus) {
    auto [it, fresh] = latest_by_profile.try_emplace(row.newest_profile);
    if (fresh) {
      auto read = ReadLatestSamples(store, row.newest_profile);
      if (read.ok()) it->second = std::move(*read);
    }
    for (const LatestSample& s : it->second)
      if (KeyOf(s.entity) == key) row.latest[s.metric] = s.value;
  }
  return gpus;
}

struct Heatmap {
  TimeNs start_ns = 0;
  TimeNs bin_ns = 1;
  size_t bins = 0;
  std::vector<std::vector<std::optional<double>>> rows;  // parallel to the GPU rows
};

// Per GPU and time bin, the sample-weighted mean utilization over every live profile
// (each series read back downsampled by the store, so a week of 1 Hz samples stays cheap).
Heatmap BuildHeatmap(ProfileStore& store, const std::vector<const GpuRow*>& rows, size_t bins) {
  Heatmap heat;
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
  for (const GpuRow* row : rows)
    for (const UtilSeries& u : row->util) {
      first = std::min(first, u.stats.first_ns);
      last = std::max(last, u.stats.last_ns);
    }
  if (first > last) return heat;
  heat.start_ns = first;
  heat.bins = bins;
  heat.bin_ns = std::max<TimeNs>(1, (last - first) / static_cast<TimeNs>(bins) + 1);
  for (const GpuRow* row : rows) {
    std::vector<double> sum(bins, 0), count(bins, 0);
    for (const UtilSeries& u : row->util) {
      SeriesQuery query;
      query.profile_id = u.profile_id;
      query.metric = Metric::kGpuUtilPct;
      query.source_name = u.stats.source_name;
      query.entity.gpu_index = u.stats.entity.gpu_index;
      query.entity.gpu_instance_id = u.stats.entity.gpu_instance_id;
      query.max_points = bins;
      auto found = store.QuerySeries(query);
      if (!found.ok()) continue;
      for (const SeriesQueryResult& r : *found) {
        if (r.series_id != u.stats.series_id) continue;
        for (const DownsampledPoint& p : r.points) {
          size_t b = std::min(bins - 1, static_cast<size_t>((p.time_ns - first) / heat.bin_ns));
          sum[b] += p.mean * static_cast<double>(p.count);
          count[b] += static_cast<double>(p.count);
        }
      }
    }
    std::vector<std::optional<double>> values(bins);
    for (size_t b = 0; b < bins; ++b)
      if (count[b] > 0) values[b] = sum[b] / count[b];
    heat.rows.push_back(std::move(values));
  }
  return heat;
}

void WriteOptional(JsonWriter& json, std::string_view key, std::optional<double> value) {
  json.Key(key);
  if (value) json.Number(*value);
  else json.Null();
}

std::optional<double> MeanUtil(const GpuRow& row) {
  if (row.util_samples == 0) return std::nullopt;
  return row.util_sum / static_cast<double>(row.util_samples);
}

void WriteGpu(JsonWriter& json, const GpuRow& row) {
  const SeriesEntity& e = row.entity;
  json.BeginObject().Field("hostname", e.hostname).Field("gpu_index", e.gpu_index);
  json.Field("gpu_instance_id", e.gpu_instance_id).Field("gpu_uuid", e.gpu_uuid).Field("gpu_name", e.gpu_name);
  json.Field("profile_id", row.newest_profile).Field("profiles", static_cast<int64_t>(row.profiles.size()));
  json.Field("first_ns", row.first_ns).Field("last_ns", row.newest_ns).Field("time_ns", row.newest_ns);
  for (Metric m : {Metric::kGpuUtilPct, Metric::kFbUsedBytes, Metric::kPowerW}) {
    auto it = row.latest.find(m);
    WriteOptional(json, GetMetricInfo(m).name,
                  it == row.latest.end() ? std::nullopt : std::optional<double>(it->second));
  }
  WriteOptional(json, "mean_gpu_util_pct", MeanUtil(row));
  json.EndObject();
}

void WriteHeatmap(JsonWriter& json, const Heatmap& heat) {
  json.Key("heatmap").BeginObject().Field("metric", "gpu_util_pct").Field("start_ns", heat.start_ns);
  json.Field("bin_ns", heat.bin_ns).Field("bins", static_cast<int64_t>(heat.bins)).Key("rows").BeginArray();
  for (size_t i = 0; i < heat.rows.size(); ++i) {
    json.BeginObject().Field("gpu", static_cast<int64_t>(i)).Key("values").BeginArray();
    for (const std::optional<double>& v : heat.rows[i]) {
      if (v) json.Number(*v);
      else json.Null();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
}

}  // namespace

Result<std::string> RenderClusterView(ProfileStore& store, const ClusterViewSettings& settings) {
  if (settings.bins < 1 || settings.bins > kMaxClusterBins)
    return InvalidInput("bins must be 1.." + std::to_string(kMaxClusterBins));
  if (settings.threshold_pct < 0 || settings.threshold_pct > 100) return InvalidInput("threshold_pct must be 0..100");
  KRAKEN_ASSIGN_OR_RETURN(auto gpus, CollectGpus(store));
  std::vector<const GpuRow*> rows;
  for (const auto& [key, row] : gpus) rows.push_back(&row);
  Heatmap heat = BuildHeatmap(store, rows, settings.bins);

  JsonWriter json(false);
  json.BeginObject().Key("gpus").BeginArray();
  for (const GpuRow* row : rows) WriteGpu(json, *row);
  json.EndArray();
  WriteHeatmap(json, heat);
  json.Key("pooling_candidates").BeginArray();
  for (const GpuRow* row : rows) {
    std::optional<double> mean = MeanUtil(*row);
    if (!mean || *mean >= static_cast<double>(settings.threshold_pct)) continue;
    json.BeginObject().Field("profile_id", row->newest_profile).Field("hostname", row->entity.hostname);
    json.Field("gpu_index", row->entity.gpu_index).Field("mean_gpu_util_pct", *mean);
    char reason[160];
    std::snprintf(reason, sizeof(reason), "mean utilization %.1f %% < %lld %%: its work could share a GPU", *mean,
                  static_cast<long long>(settings.threshold_pct));
    json.Field("reason", reason).EndObject();
  }
  json.EndArray().Field("threshold_pct", settings.threshold_pct).EndObject();
  return json.Take();
}

}  // namespace kraken
