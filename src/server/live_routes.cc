// GET /api/v1/cluster (the latest figures per GPU of every stored live profile, and the
// GPUs idle enough to pool) and GET /api/v1/live (server-sent events, 1 Hz, with the
// latest samples of the newest live profile). Shapes: docs/api.md.
#include <chrono>
#include <map>
#include <thread>

#include "base/json_writer.h"
#include "server/http_util.h"
#include "server/latest_samples.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// Below this mean utilization a GPU's work could share a GPU with another's (the
// threshold docs/packing.md's idle-GPU figures use); ?threshold_pct= changes it.
constexpr int64_t kDefaultPoolingThresholdPct = 30;

struct GpuRow {
  int64_t profile_id = 0;
  SeriesEntity entity;
  int64_t time_ns = 0;
  std::map<Metric, double> latest;
  std::optional<double> mean_util;
};

void WriteLatest(JsonWriter& json, const GpuRow& row, Metric metric) {
  json.Key(GetMetricInfo(metric).name);
  auto it = row.latest.find(metric);
  if (it == row.latest.end()) json.Null();
  else json.Number(it->second);
}

void HandleCluster(ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  auto threshold = IntParam(req, "threshold_pct", kDefaultPoolingThresholdPct, 0, 100);
  if (!threshold.ok()) return SendStatus(res, threshold.status());
  auto store = ctx.store->Acquire();
  if (!store.ok()) return SendStatus(res, store.status());
  auto infos = (*store)->ListProfiles();
  if (!infos.ok()) return SendStatus(res, infos.status());
  std::vector<GpuRow> rows;
  for (const StoredProfileInfo& info : *infos) {
    if (info.kind != "live") continue;
    auto samples = ReadLatestSamples(**store, info.id);
    if (!samples.ok()) continue;  // deleted meanwhile
    std::map<std::pair<int32_t, int32_t>, GpuRow> by_gpu;
    for (const LatestSample& s : *samples) {
      GpuRow& row = by_gpu[{s.entity.gpu_index, s.entity.gpu_instance_id}];
      row.profile_id = info.id;
      row.entity = s.entity;
      row.time_ns = std::max<int64_t>(row.time_ns, s.time_ns);
      row.latest[s.metric] = s.value;
      if (s.metric == Metric::kGpuUtilPct) row.mean_util = s.mean;
    }
    for (auto& [key, row] : by_gpu) rows.push_back(std::move(row));
  }
  JsonWriter json(false);
  json.BeginObject().Key("gpus").BeginArray();
  for (const GpuRow& row : rows) {
    json.BeginObject().Field("profile_id", row.profile_id).Field("hostname", row.entity.hostname);
    json.Field("gpu_index", row.entity.gpu_index).Field("gpu_instance_id", row.entity.gpu_instance_id);
    json.Field("gpu_uuid", row.entity.gpu_uuid).Field("gpu_name", row.entity.gpu_name);
    json.Field("time_ns", row.time_ns);
    for (Metric m : {Metric::kGpuUtilPct, Metric::kFbUsedBytes, Metric::kPowerW}) WriteLatest(json, row, m);
    json.Key("mean_gpu_util_pct");
    if (row.mean_util) json.Number(*row.mean_util);
    else json.Null();
    json.EndObject();
  }
  json.EndArray().Key("pooling_candidates").BeginArray();
  for (const GpuRow& row : rows) {
    if (!row.mean_util || *row.mean_util >= static_cast<double>(*threshold)) continue;
    json.BeginObject().Field("profile_id", row.profile_id).Field("gpu_index", row.entity.gpu_index);
    json.Field("mean_gpu_util_pct", *row.mean_util);
    char reason[160];
    std::snprintf(reason, sizeof(reason), "mean utilization %.1f %% < %lld %%: its work could share a GPU",
                  *row.mean_util, static_cast<long long>(*threshold));
    json.Field("reason", reason).EndObject();
  }
  json.EndArray().Field("threshold_pct", *threshold).EndObject();
  SendJson(res, 200, json.Take());
}

// One "samples" event: the newest live profile's latest values, or an empty list.
std::string LiveEvent(ServerContext& ctx) {
  JsonWriter json(false);
  json.BeginObject();
  std::optional<StoredProfileInfo> live;
  std::vector<LatestSample> samples;
  if (auto store = ctx.store->Acquire(); store.ok()) {
    if (auto newest = NewestLiveProfile(**store); newest.ok()) live = *newest;
    if (live)
      if (auto read = ReadLatestSamples(**store, live->id); read.ok()) samples = std::move(*read);
  }
  json.Key("profile_id");
  if (live) json.Int(live->id);
  else json.Null();
  int64_t newest_ns = 0;
  for (const LatestSample& s : samples) newest_ns = std::max<int64_t>(newest_ns, s.time_ns);
  json.Key("time_ns");
  if (samples.empty()) json.Null();
  else json.Int(newest_ns);
  json.Key("samples").BeginArray();
  for (const LatestSample& s : samples) {
    json.BeginObject().Field("gpu_index", s.entity.gpu_index).Field("gpu_instance_id", s.entity.gpu_instance_id);
    json.Field("metric", GetMetricInfo(s.metric).name).Field("value", s.value).Field("time_ns", s.time_ns);
    json.EndObject();
  }
  json.EndArray().EndObject();
  return "event: samples\ndata: " + json.Take() + "\n\n";
}

void HandleLive(ServerContext& ctx, httplib::Response& res) {
  const int budget = LiveStreamBudget(ctx.options);
  if (ctx.live_streams.fetch_add(1) >= budget) {
    ctx.live_streams.fetch_sub(1);
    res.set_header("Retry-After", "5");
    return SendError(res, 503, "unavailable",
                     "already " + std::to_string(budget) + " live streams open (a quarter of --threads); retry later");
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream", [&ctx](size_t, httplib::DataSink& sink) {
    if (ctx.stopping) return false;
    std::string event = LiveEvent(ctx);
    if (!sink.write(event.data(), event.size())) return false;
    // The next event a second later; checks every 100 ms whether the server stops or the
    // client went away, so neither waits on a sleeping stream.
    for (int i = 0; i < 10; ++i) {
      if (ctx.stopping || !sink.is_writable()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  },
      // Runs when the response is destroyed, however the stream ended.
      [&ctx](bool) { ctx.live_streams.fetch_sub(1); });
}

}  // namespace

void AddLiveRoutes(httplib::Server& server, ServerContext& ctx) {
  server.Get("/api/v1/cluster", [&ctx](const httplib::Request& req, httplib::Response& res) {
    HandleCluster(ctx, req, res);
  });
  server.Get("/api/v1/live", [&ctx](const httplib::Request&, httplib::Response& res) { HandleLive(ctx, res); });
}

}  // namespace kraken::server
