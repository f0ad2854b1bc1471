// /api/v1/profiles, /api/v1/profiles/{id}[/analysis|/disagg|/report|/series]: stored profiles,
// their summaries and the same documents the CLI prints for them. Shapes: docs/api.md.

#include "analysis/colocate/profile_demands.h"
#include "app/analyze_request.h"
#include "app/disagg_request.h"
#include "app/report_request.h"
#include "app/store_requests.h"
#include "base/json_writer.h"
#include "base/text.h"
#include "model/metrics.h"
#include "report/profile_summary.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

constexpr const char* kIdPattern = R"(/api/v1/profiles/([^/]+))";

// The facts of a stored profile, computed on first use (the profile is loaded once).
Result<ProfileFacts> FactsOf(ServerContext& ctx, ProfileStore& store, int64_t id) {
  if (std::optional<ProfileFacts> cached = ctx.facts.Find(id)) return *cached;
  KRAKEN_ASSIGN_OR_RETURN(Profile profile, store.LoadProfile(id));
  ProfileFacts facts = ComputeProfileFacts(profile);
  ctx.facts.Put(id, facts);
  return facts;
}

void WriteOptional(JsonWriter& json, std::string_view key, const std::optional<double>& value) {
  json.Key(key);
  if (value) json.Number(*value);
  else json.Null();
}

// The fields the list and the single profile share.
void WriteListingFields(JsonWriter& json, const StoredProfileInfo& info, const ProfileFacts& facts) {
  json.Field("id", info.id).Field("name", WorkloadStem(info.source)).Field("kind", info.kind);
  json.Field("source", info.source).Field("format", info.format);
  json.Field("created", Rfc3339Utc(info.created_ns)).Field("created_ns", info.created_ns);
  json.Field("hostname", info.hostname).Key("devices").BeginArray();
  for (const std::string& name : info.device_names) json.String(name);
  json.EndArray().Field("device_summary", DescribeDevices(info.device_names)).Field("workload_type", facts.workload_type).Key("bound");
  if (facts.bound) json.String(*facts.bound);
  else json.Null();
  WriteOptional(json, "gpu_util", facts.gpu_util);
  WriteOptional(json, "disagg_score", facts.disagg_score);
}

// The {id} of the path: a positive integer naming a stored profile, else 404.
std::optional<int64_t> PathId(const httplib::Request& req, httplib::Response& res) {
  std::optional<int64_t> id = ParsePositiveId(req.matches[1].str());
  if (!id) SendError(res, 404, "not_found", "no profile '" + req.matches[1].str() + "' (ids are positive integers)");
  return id;
}

void HandleList(ServerContext& ctx, httplib::Response& res) {
  auto store = ctx.store->Acquire();
  if (!store.ok()) return SendStatus(res, store.status());
  auto infos = (*store)->ListProfiles();
  if (!infos.ok()) return SendStatus(res, infos.status());
  // Newest first, as a dashboard shows them.
  std::sort(infos->begin(), infos->end(), [](const StoredProfileInfo& a, const StoredProfileInfo& b) {
    return a.id > b.id;
  });
  JsonWriter json(false);
  json.BeginObject().Key("profiles").BeginArray();
  for (const StoredProfileInfo& info : *infos) {
    auto facts = FactsOf(ctx, **store, info.id);
    if (!facts.ok()) continue;  // deleted since it was listed
    json.BeginObject();
    WriteListingFields(json, info, *facts);
    json.EndObject();
  }
  json.EndArray().Field("count", static_cast<int64_t>(infos->size())).EndObject();
  SendJson(res, 200, json.Take());
}

void HandleGet(ServerContext& ctx, int64_t id, httplib::Response& res) {
  auto store = ctx.store->Acquire();
  if (!store.ok()) return SendStatus(res, store.status());
  auto info = (*store)->GetProfileInfo(id);
  if (!info.ok()) return SendStatus(res, info.status());
  auto profile = (*store)->LoadProfile(id);
  if (!profile.ok()) return SendStatus(res, profile.status());
  ProfileFacts facts = ComputeProfileFacts(*profile);
  ctx.facts.Put(id, facts);
  JsonWriter json(false);
  json.BeginObject();
  WriteListingFields(json, *info, facts);
  json.Key("counts").BeginObject().Field("kernels", info->kernels).Field("memory_ops", info->memory_ops);
  json.Field("cpu_ops", info->cpu_ops).Field("runtime_calls", info->runtime_calls);
  json.Field("series", info->series).Field("samples", info->samples).EndObject();
  json.Key("start_ns");
  if (info->start_ns) json.Int(*info->start_ns);
  else json.Null();
  json.Key("end_ns");
  if (info->end_ns) json.Int(*info->end_ns);
  else json.Null();
  json.Field("duration_s", static_cast<double>(info->duration_ns()) / 1e9);
  json.Key("summary");
  WriteProfileSummaryJson(*profile, json);
  json.EndObject();
  SendJson(res, 200, json.Take());
}

void HandleAnalysis(ServerContext& ctx, int64_t id, const httplib::Request& req, httplib::Response& res) {
  AnalyzeSettings settings;
  settings.device = req.get_param_value("device");
  if (req.has_param("window")) settings.window = req.get_param_value("window");
  settings.thresholds = req.get_param_value("thresholds");
  auto top = IntParam(req, "top", 10, 0, 1'000'000);
  if (!top.ok()) return SendStatus(res, top.status());
  settings.top = static_cast<size_t>(*top);
  auto linked = BoolParam(req, "linked_only");
  if (!linked.ok()) return SendStatus(res, linked.status());
  settings.linked_only = *linked;
  auto options = MakeCharacterizeOptions(settings);
  if (!options.ok()) return SendStatus(res, options.status());
  std::vector<Profile> profiles;
  {
    auto store = ctx.store->Acquire();
    if (!store.ok()) return SendStatus(res, store.status());
    auto profile = (*store)->LoadProfile(id);
    if (!profile.ok()) return SendStatus(res, profile.status());
    profiles.push_back(std::move(*profile));
  }
  SendJson(res, 200, RenderAnalysis(profiles, settings, *options, /*json=*/true));
}

// The query parameters `kraken disagg` has as flags where they change the document:
// max_slowdown (--max-slowdown, %) and price (--price), checked by the app layer.
Result<DisaggSetup> DisaggSetupOf(const httplib::Request& req) {
  DisaggSettings settings;
  KRAKEN_ASSIGN_OR_RETURN(settings.max_slowdown_pct,
                          FiniteNumberParam(req, "max_slowdown", settings.max_slowdown_pct));
  KRAKEN_ASSIGN_OR_RETURN(settings.price, FiniteNumberParam(req, "price", settings.price));
  return MakeDisaggSetup(settings);
}

void HandleDisagg(ServerContext& ctx, int64_t id, const httplib::Request& req, httplib::Response& res) {
  auto setup = DisaggSetupOf(req);
  if (!setup.ok()) return SendStatus(res, setup.status());
  std::vector<Profile> profiles;
  {
    auto store = ctx.store->Acquire();
    if (!store.ok()) return SendStatus(res, store.status());
    auto loaded = (*store)->LoadProfile(id);
    if (!loaded.ok()) return SendStatus(res, loaded.status());
    profiles.push_back(std::move(*loaded));
  }
  // The CLI's path; the only failure left is a profile without a workload.
  auto document = RenderDisagg(profiles, *setup, /*json=*/true);
  if (!document.ok())
    return SendError(res, 422, "unprocessable", "profile " + std::to_string(id) + " holds no workload to analyse");
  SendJson(res, 200, std::move(document).value());
}

// The data document `kraken report --data-only` writes for this one profile: the workload
// page draws it, so its summary (idle %, unused memory, savings) is the report's, figure
// for figure, and its series are already reduced to bucketed panels server-side.
void HandleReport(ServerContext& ctx, int64_t id, const httplib::Request& req, httplib::Response& res) {
  ReportSettings settings;
  settings.analyze.device = req.get_param_value("device");
  std::vector<Profile> profiles;
  ReportCache::Key key;
  {
    auto store = ctx.store->Acquire();
    if (!store.ok()) return SendStatus(res, store.status());
    auto info = (*store)->GetProfileInfo(id);
    if (!info.ok()) return SendStatus(res, info.status());
    key = {id, info->created_ns, settings.analyze.device};
    if (std::optional<std::string> cached = ctx.reports.Find(key)) return SendJson(res, 200, std::move(*cached));
    auto loaded = (*store)->LoadProfile(id);
    if (!loaded.ok()) return SendStatus(res, loaded.status());
    settings.title = WorkloadStem(info->source);
    settings.inputs = {info->source};
    profiles.push_back(std::move(*loaded));
  }
  auto document = RenderReportData(profiles, settings);
  if (!document.ok()) return SendStatus(res, document.status());
  ctx.reports.Put(key, *document);
  SendJson(res, 200, std::move(document).value());
}

void WriteEntity(JsonWriter& json, const SeriesEntity& e) {
  json.Key("entity").BeginObject().Field("gpu_index", e.gpu_index).Field("gpu_uuid", e.gpu_uuid);
  json.Field("gpu_name", e.gpu_name).Field("gpu_instance_id", e.gpu_instance_id).Field("pid", e.pid);
  json.Field("hostname", e.hostname).EndObject();
}

void HandleSeries(ServerContext& ctx, int64_t id, const httplib::Request& req, httplib::Response& res) {
  std::string metric_name = req.has_param("metric") ? req.get_param_value("metric") : "gpu_util_pct";
  Metric metric = MetricFromName(metric_name);
  if (metric == Metric::kOther)
    return SendError(res, 400, "bad_request", "unknown metric '" + metric_name + "' (canonical names: gpu_util_pct, "
                                              "fb_used_bytes, power_w, pcie_tx_bytes_per_s, ...)");
  auto max_points = IntParam(req, "max_points", 500, 1, 100'000);
  if (!max_points.ok()) return SendStatus(res, max_points.status());
  SeriesQuery query;
  query.profile_id = id;
  query.metric = metric;
  query.max_points = static_cast<size_t>(*max_points);
  if (req.has_param("gpu")) {
    auto gpu = IntParam(req, "gpu", 0, 0, 1 << 20);
    if (!gpu.ok()) return SendStatus(res, gpu.status());
    query.entity.gpu_index = static_cast<int32_t>(*gpu);
  }
  auto store = ctx.store->Acquire();
  if (!store.ok()) return SendStatus(res, store.status());
  auto info = (*store)->GetProfileInfo(id);  // an unknown id is a 404, not an empty list
  if (!info.ok()) return SendStatus(res, info.status());
  auto result = (*store)->QuerySeries(query);
  if (!result.ok()) return SendStatus(res, result.status());
  JsonWriter json(false);
  json.BeginObject().Field("profile_id", id).Field("metric", metric_name);
  json.Field("unit", GetMetricInfo(metric).unit).Key("series").BeginArray();
  for (const SeriesQueryResult& s : *result) {
    json.BeginObject().Field("series_id", s.series_id).Field("source_name", s.source_name);
    WriteEntity(json, s.entity);
    json.Key("points").BeginArray();
    for (const DownsampledPoint& p : s.points) {
      json.BeginObject().Field("t_ns", p.time_ns).Field("mean", p.mean).Field("min", p.min);
      json.Field("max", p.max).Field("count", p.count).EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  SendJson(res, 200, json.Take());
}

}  // namespace

void AddProfileRoutes(httplib::Server& server, ServerContext& ctx) {
  server.Get("/api/v1/profiles", [&ctx](const httplib::Request&, httplib::Response& res) { HandleList(ctx, res); });
  server.Get(kIdPattern, [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (auto id = PathId(req, res)) HandleGet(ctx, *id, res);
  });
  server.Get(std::string(kIdPattern) + "/analysis", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (auto id = PathId(req, res)) HandleAnalysis(ctx, *id, req, res);
  });
  server.Get(std::string(kIdPattern) + "/disagg", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (auto id = PathId(req, res)) HandleDisagg(ctx, *id, req, res);
  });
  server.Get(std::string(kIdPattern) + "/report", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (auto id = PathId(req, res)) HandleReport(ctx, *id, req, res);
  });
  server.Get(std::string(kIdPattern) + "/series", [&ctx](const httplib::Request& req, httplib::Response& res) {
    if (auto id = PathId(req, res)) HandleSeries(ctx, *id, req, res);
  });
}

}  // namespace kraken::server
