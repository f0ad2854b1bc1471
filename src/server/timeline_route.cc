// GET /api/v1/profiles/{id}/timeline?start_us=&end_us=&width=: the kernels per stream of a
// stored profile inside one window (µs from the first kernel; both absent: the whole
// trace), as events or, where a stream has too many, per-pixel buckets
// (app/timeline_window.h). The dashboard's timeline explorer (#/timeline/ID) draws it.
#include "app/timeline_window.h"
#include "base/number_input.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// The window bounds, µs from the trace start; at most ~30 years of trace.
Result<TimeNs> MicrosecondsParam(const httplib::Request& req, const char* name) {
  if (!req.has_param(name)) return TimeNs{0};
  auto value = ParseBoundedNumber(req.get_param_value(name), 0, 1e15);
  if (!value) return InvalidInput(std::string(name) + " must be a number of µs >= 0, got '" + req.get_param_value(name) + "'");
  return static_cast<TimeNs>(*value * 1e3);
}

Result<std::shared_ptr<const TimelineIndex>> IndexOf(ServerContext& ctx, int64_t id) {
  auto store = ctx.store->Acquire();
  if (!store.ok()) return store.status();
  KRAKEN_ASSIGN_OR_RETURN(auto info, (*store)->GetProfileInfo(id));
  const TimelineCache::Key key{id, info.created_ns};
  if (auto cached = ctx.timelines.Find(key)) return cached;
  KRAKEN_ASSIGN_OR_RETURN(Profile profile, (*store)->LoadProfile(id));
  auto index = std::make_shared<const TimelineIndex>(std::move(profile));
  ctx.timelines.Put(key, index);
  return index;
}

void HandleTimeline(ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::optional<int64_t> id = ParsePositiveId(req.matches[1].str());
  if (!id) return SendError(res, 404, "not_found", "no profile '" + req.matches[1].str() + "' (ids are positive integers)");
  TimelineQuery query;
  auto start = MicrosecondsParam(req, "start_us");
  if (!start.ok()) return SendStatus(res, start.status());
  auto end = MicrosecondsParam(req, "end_us");
  if (!end.ok()) return SendStatus(res, end.status());
  if (req.has_param("start_us") != req.has_param("end_us"))
    return SendError(res, 400, "bad_request", "give both start_us and end_us, or neither (the whole trace)");
  auto width = IntParam(req, "width", 1000, 1, kTimelineMaxWidthPx);
  if (!width.ok()) return SendStatus(res, width.status());
  query.start_ns = *start;
  query.end_ns = *end;
  query.width_px = *width;
  auto index = IndexOf(ctx, *id);
  if (!index.ok()) return SendStatus(res, index.status());
  auto document = (*index)->RenderWindowJson(query);
  if (!document.ok()) return SendStatus(res, document.status());
  SendJson(res, 200, std::move(document).value());
}

}  // namespace

void AddTimelineRoute(httplib::Server& server, ServerContext& ctx) {
  server.Get(R"(/api/v1/profiles/([^/]+)/timeline)",
             [&ctx](const httplib::Request& req, httplib::Response& res) { HandleTimeline(ctx, req, res); });
}

}  // namespace kraken::server
