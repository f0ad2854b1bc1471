#include "app/cluster_view.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "app/latest_samples.h"
#include "app/cluster_document.h"

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

// Per GPU and time bin, the sample-weighted mean utilization over every live profile
// (each series read back downsampled by the store, so a week of 1 Hz samples stays cheap).
ClusterHeatmap BuildHeatmap(ProfileStore& store, const std::vector<const GpuRow*>& rows, size_t bins) {
  ClusterHeatmap heat;
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

std::optional<double> MeanUtil(const GpuRow& row) {
  if (row.util_samples == 0) return std::nullopt;
  return row.util_sum / static_cast<double>(row.util_samples);
}

std::optional<double> Latest(const GpuRow& row, Metric metric) {
  auto it = row.latest.find(metric);
  if (it == row.latest.end()) return std::nullopt;
  return it->second;
}

ClusterGpu ToClusterGpu(const GpuRow& row) {
  ClusterGpu gpu;
  gpu.entity = row.entity;
  gpu.profile_id = row.newest_profile;
  gpu.profiles = static_cast<int64_t>(row.profiles.size());
  gpu.first_ns = row.first_ns;
  gpu.last_ns = row.newest_ns;
  gpu.gpu_util_pct = Latest(row, Metric::kGpuUtilPct);
  gpu.fb_used_bytes = Latest(row, Metric::kFbUsedBytes);
  gpu.power_w = Latest(row, Metric::kPowerW);
  gpu.mean_gpu_util_pct = MeanUtil(row);
  return gpu;
}

}  // namespace

Result<std::string> RenderClusterView(ProfileStore& store, const ClusterViewSettings& settings) {
  if (settings.bins < 1 || settings.bins > kMaxClusterBins)
    return InvalidInput("bins must be 1.." + std::to_string(kMaxClusterBins));
  if (settings.threshold_pct < 0 || settings.threshold_pct > 100) return InvalidInput("threshold_pct must be 0..100");
  KRAKEN_ASSIGN_OR_RETURN(auto gpus, CollectGpus(store));
  std::vector<const GpuRow*> rows;
  for (const auto& [key, row] : gpus) rows.push_back(&row);
  ClusterDocument doc;
  doc.heatmap = BuildHeatmap(store, rows, settings.bins);
  doc.threshold_pct = settings.threshold_pct;
  for (const GpuRow* row : rows) doc.gpus.push_back(ToClusterGpu(*row));
  return RenderClusterDocument(doc);
}

}  // namespace kraken
