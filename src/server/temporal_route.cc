// POST /api/v1/temporal {"profile_id":N,"series":["active"],"horizon":"1h,24h"}: the
// `kraken temporal --json` document for the series of a stored profile, selected and
// analysed by the CLI's own path (app/temporal_request.h).
#include "app/temporal_request.h"
#include "server/http_util.h"
#include "server/json_body.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

void HandleTemporal(ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string type = req.get_header_value("Content-Type");
  if (!type.empty() && type.find("json") == std::string::npos)
    return SendError(res, 415, "unsupported_media_type", "send the request as application/json, not " + type);
  auto body = JsonBody::Parse(req.body);
  if (!body.ok()) return SendError(res, 400, "bad_json", body.status().message());
  auto id = body->Number("profile_id", 1, 9007199254740992.0);  // 2^53: ids stay exact
  if (!id.ok()) return SendStatus(res, id.status());
  if (!*id || **id != static_cast<double>(static_cast<int64_t>(**id)))
    return SendError(res, 400, "bad_request", "'profile_id' must be the positive id of a stored profile");
  auto selectors = body->StringList("series");
  if (!selectors.ok()) return SendStatus(res, selectors.status());
  auto horizon_text = body->String("horizon");
  if (!horizon_text.ok()) return SendStatus(res, horizon_text.status());
  TemporalSettings settings;
  if (!horizon_text->empty()) settings.horizons = *horizon_text;
  auto options = MakeTemporalOptions(settings);
  if (!options.ok()) return SendStatus(res, options.status());

  Profile profile;
  {
    auto store = ctx.store->Acquire();
    if (!store.ok()) return SendStatus(res, store.status());
    auto loaded = (*store)->LoadProfile(static_cast<int64_t>(**id));
    if (!loaded.ok()) return SendStatus(res, loaded.status());
    profile = std::move(*loaded);
  }
  if (profile.series.empty())
    return SendError(res, 422, "unprocessable", "profile " + std::to_string(static_cast<int64_t>(**id)) +
                                                    " holds no sampled series (format " + profile.metadata.format + ")");
  std::vector<bool> matched(selectors->size(), false);
  TemporalFile file = AnalyzeProfileSeries(profile, *selectors, *options, &matched);
  for (size_t k = 0; k < matched.size(); ++k)
    if (!matched[k]) return SendError(res, 400, "bad_request", "series '" + (*selectors)[k] + "' matches no series");
  SendJson(res, 200, RenderTemporalJson({file}, *options));
}

}  // namespace

void AddTemporalRoute(httplib::Server& server, ServerContext& ctx) {
  server.Post("/api/v1/temporal", [&ctx](const httplib::Request& req, httplib::Response& res) {
    HandleTemporal(ctx, req, res);
  });
}

}  // namespace kraken::server
