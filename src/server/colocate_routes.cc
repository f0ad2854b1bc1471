// GET /api/v1/colocate?a=&b=: the `kraken colocate --json` document for two stored profiles
// (ids) or predefined measured workloads (resnet50, mobilenet, bert), made by the CLI's own
// path (app/colocate_request.h), and the compiled-in OpenAPI document.
// POST /api/v1/pack, which takes the cluster in its body, is in pack_route.cc.
#include "analysis/colocate/profile_demands.h"
#include "app/colocate_request.h"
#include "model/device_catalog.h"
#include "server/http_util.h"
#include "server/openapi_document.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// Appends the demands of one `a`/`b` value: a stored id or a measured predefined name.
Status AppendWorkload(ServerContext& ctx, const std::string& ref, const DeviceSpec* device, ProfileDemands* out) {
  if (std::optional<int64_t> id = ParsePositiveId(ref)) {
    KRAKEN_ASSIGN_OR_RETURN(StorePool::Lease store, ctx.store->Acquire());
    KRAKEN_ASSIGN_OR_RETURN(Profile profile, store->LoadProfile(*id));
    return AppendProfileDemands(profile, "profile " + ref, device, out);
  }
  // kraken's measurements of the predefined models, whichever set the legacy API serves.
  std::optional<LegacyProfile> legacy = ctx.legacy->MeasuredReference(ref);
  if (!legacy) legacy = ctx.legacy->Find(ref);
  if (!legacy) return NotFound("no profile '" + ref + "' (a stored id, or resnet50, mobilenet, bert)");
  if (legacy->profile == nullptr)
    return InvalidInput("'" + ref + "' has no measured kernel list (" + legacy->data_source + ")");
  return AppendProfileDemands(*legacy->profile, legacy->input_name, device, out);
}

void HandleColocate(ServerContext& ctx, const httplib::Request& req, httplib::Response& res) {
  std::string a = req.get_param_value("a");
  std::string b = req.get_param_value("b");
  if (a.empty() || b.empty()) return SendError(res, 400, "bad_request", "both 'a' and 'b' are required");
  const DeviceSpec* device = nullptr;
  if (req.has_param("device")) {
    device = FindDeviceSpec(req.get_param_value("device"));
    if (device == nullptr)
      return SendError(res, 400, "bad_request", "unknown device '" + req.get_param_value("device") + "'");
  }
  ColocateSettings settings;  // the CLI's defaults
  auto setup = MakeColocateSetup(settings);
  if (!setup.ok()) return SendStatus(res, setup.status());
  setup->device = device;
  ProfileDemands demands;
  for (const std::string& ref : {a, b}) {
    Status status = AppendWorkload(ctx, ref, device, &demands);
    if (!status.ok()) return SendStatus(res, status, 422);
  }
  FinishProfileDemands(&demands);
  auto document = RenderColocate(demands, settings, *setup, /*json=*/true);
  if (!document.ok()) return SendStatus(res, document.status(), 422);
  SendJson(res, 200, std::move(document).value());
}

}  // namespace

void AddColocateRoutes(httplib::Server& server, ServerContext& ctx) {
  server.Get("/api/v1/colocate", [&ctx](const httplib::Request& req, httplib::Response& res) {
    HandleColocate(ctx, req, res);
  });
  server.Get("/api/v1/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    SendJson(res, 200, std::string(OpenApiDocument()));
  });
}

}  // namespace kraken::server
