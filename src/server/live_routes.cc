// GET /api/v1/cluster (one row per GPU over every stored live profile, a GPU x time
// heatmap and the GPUs idle enough to pool: app/cluster_view.h) and GET /api/v1/live
// (server-sent events, 1 Hz, with the latest samples: of the agent's ring with --agent,
// else of Prometheus with --prometheus, else of the newest live profile in the store).
// Shapes: docs/api.md.
#include <chrono>
#include <map>
#include <memory>
#include <thread>

#include "app/cluster_prometheus.h"
#include "app/cluster_view.h"
#include "app/live_prometheus.h"
#include "promql/query_plan.h"
#include "app/latest_samples.h"
#include "base/json_writer.h"
#include "server/agent_ring_source.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// ?range= (Prometheus duration, default 1d), ?end= (Unix s); the step is the heatmap's bin.
Result<PrometheusClusterSettings> PrometheusSettingsOf(const ServerContext& ctx, const httplib::Request& req) {
  PrometheusClusterSettings settings;
  settings.prometheus_url = ctx.options.prometheus;
  settings.timeout_s = std::max(1, ctx.options.timeout_s * 3 - 1);  // answer within the response deadline
  if (req.has_param("range")) {
    auto range = promql::ParsePromDurationSeconds(req.get_param_value("range"));
    if (!range.ok()) return range.status().WithContext("range");
    settings.range_s = *range;
  }
  KRAKEN_ASSIGN_OR_RETURN(settings.end_s, IntParam(req, "end", 0, 0, int64_t{1} << 40));
  return settings;
}

void HandleCluster(ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  ClusterViewSettings settings;
  auto threshold = IntParam(req, "threshold_pct", settings.threshold_pct, 0, 100);
  if (!threshold.ok()) return SendStatus(res, threshold.status());
  auto bins = IntParam(req, "bins", static_cast<int64_t>(settings.bins), 1, static_cast<int64_t>(kMaxClusterBins));
  if (!bins.ok()) return SendStatus(res, bins.status());
  settings.threshold_pct = *threshold;
  settings.bins = static_cast<size_t>(*bins);
  if (!ctx.options.prometheus.empty()) {
    auto prometheus = PrometheusSettingsOf(ctx, req);
    if (!prometheus.ok()) return SendStatus(res, prometheus.status());
    prometheus->threshold_pct = settings.threshold_pct;
    prometheus->bins = settings.bins;
    auto document = RenderPrometheusClusterView(*prometheus);
    // The request was checked above: what fails now is Prometheus. Down, too slow or
    // failing is 503 (retry later); a refused query or an unreadable answer is 502.
    if (!document.ok() && document.status().code() == StatusCode::kUnavailable)
      return SendStatus(res, document.status());
    if (!document.ok()) return SendError(res, 502, "bad_gateway", document.status().message());
    return SendJson(res, 200, std::move(document).value());
  }
  auto store = ctx.store->Acquire();
  if (!store.ok()) return SendStatus(res, store.status());
  auto document = RenderClusterView(**store, settings);
  if (!document.ok()) return SendStatus(res, document.status());
  SendJson(res, 200, std::move(document).value());
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
  json.Field("source", "store");
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

// One "samples" event from Prometheus, read at most once a second for all streams.
std::string PrometheusLiveEvent(ServerContext& ctx) {
  SharedLiveEvent& shared = ctx.prometheus_live;
  std::lock_guard<std::mutex> lock(shared.mutex);
  auto now = std::chrono::steady_clock::now();
  if (!shared.event.empty() && now - shared.read_at < std::chrono::seconds(1)) return shared.event;
  PrometheusLiveSettings settings;
  settings.prometheus_url = ctx.options.prometheus;
  settings.timeout_s = std::max(1, ctx.options.timeout_s);
  auto event = RenderPrometheusLiveEvent(settings);
  std::string body = event.ok() ? std::move(event).value()
                                : PrometheusLiveErrorEvent(settings.prometheus_url, event.status().message());
  shared.event = "event: samples\ndata: " + body + "\n\n";
  shared.read_at = std::chrono::steady_clock::now();
  return shared.event;
}

// The event of the source `kraken serve` was given: agent, Prometheus, else the store.
std::string NextLiveEvent(ServerContext& ctx, int64_t* since_ns) {
  if (!ctx.options.agent_host.empty())
    return "event: samples\ndata: " + AgentRingEvent({ctx.options.agent_host, ctx.options.agent_port}, since_ns) +
           "\n\n";
  if (!ctx.options.prometheus.empty()) return PrometheusLiveEvent(ctx);
  return LiveEvent(ctx);
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
  // With --agent, each stream follows the agent's ring from its own position.
  auto since_ns = std::make_shared<int64_t>(0);
  res.set_chunked_content_provider(
      "text/event-stream", [&ctx, since_ns](size_t, httplib::DataSink& sink) {
    if (ctx.stopping) return false;
    std::string event = NextLiveEvent(ctx, since_ns.get());
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
