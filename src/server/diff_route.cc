// GET /api/v1/diff?a=ID&b=ID[&top=N]: the `kraken diff --json` document comparing two
// stored profiles (A = before, B = after), by the CLI's own path (app/diff_request.h).
// The dashboard's comparison page (#/compare) draws it.
#include "app/diff_request.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// The most entries a list may ask for: the document stays small whatever the query says.
constexpr int64_t kMaxTop = 1000;

void HandleDiff(ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  if (!req.has_param("a") || !req.has_param("b"))
    return SendError(res, 400, "bad_request", "give the two stored profiles to compare: ?a=ID&b=ID");
  auto a = IntParam(req, "a", 0, 1, INT64_MAX);
  if (!a.ok()) return SendStatus(res, a.status());
  auto b = IntParam(req, "b", 0, 1, INT64_MAX);
  if (!b.ok()) return SendStatus(res, b.status());
  auto top = IntParam(req, "top", 15, 1, kMaxTop);
  if (!top.ok()) return SendStatus(res, top.status());
  std::vector<Profile> side_a, side_b;
  {
    auto store = ctx.store->Acquire();
    if (!store.ok()) return SendStatus(res, store.status());
    auto loaded_a = (*store)->LoadProfile(*a);
    if (!loaded_a.ok()) return SendStatus(res, loaded_a.status());
    auto loaded_b = (*store)->LoadProfile(*b);
    if (!loaded_b.ok()) return SendStatus(res, loaded_b.status());
    side_a.push_back(std::move(*loaded_a));
    side_b.push_back(std::move(*loaded_b));
  }
  DiffSettings settings;
  settings.top = static_cast<size_t>(*top);
  settings.a_name = "profile " + std::to_string(*a);
  settings.b_name = "profile " + std::to_string(*b);
  auto diff = DiffProfiles(side_a, side_b, settings);
  if (!diff.ok()) return SendError(res, 422, "unprocessable", diff.status().message());
  SendJson(res, 200, RenderDiffJson(*diff, settings));
}

}  // namespace

void AddDiffRoute(httplib::Server& server, ServerContext& ctx) {
  server.Get("/api/v1/diff", [&ctx](const httplib::Request& req, httplib::Response& res) { HandleDiff(ctx, req, res); });
}

}  // namespace kraken::server
