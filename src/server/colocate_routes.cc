// GET /api/v1/colocate?a=&b=: the `kraken colocate --json` document for two stored profiles
// (ids) or predefined measured workloads (resnet50, mobilenet, bert), built the way the
// CLI builds it (analysis/colocate/profile_demands.h), and the compiled-in OpenAPI document.
// POST /api/v1/pack, which takes the cluster in its body, is in pack_route.cc.
#include "analysis/colocate/colocate.h"
#include "analysis/colocate/profile_demands.h"
#include "analysis/colocate/workload_inputs.h"
#include "model/device_catalog.h"
#include "report/colocation_output.h"
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
  std::optional<LegacyProfile> legacy = ctx.legacy->Find(ref);
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
  ProfileDemands demands;
  for (const std::string& ref : {a, b}) {
    Status status = AppendWorkload(ctx, ref, device, &demands);
    if (!status.ok()) return SendStatus(res, status, 422);
  }
  FinishProfileDemands(&demands);
  if (demands.demands.size() < 2)
    return SendError(res, 422, "unprocessable",
                     "colocate needs at least two workloads, the inputs give " +
                         std::to_string(demands.demands.size()));
  ColocateOptions options;
  options.device = device;
  std::vector<ColocationWorkload> workloads;
  for (const WorkloadDemand& d : demands.demands)
    workloads.push_back(BuildColocationWorkload(d, WorkloadSetup{}, options.params));
  ColocationOutputOptions output;
  output.notes = demands.notes;
  std::vector<std::string> device_notes;
  if (const DeviceSpec* target = ResolveColocationDevice(workloads, device, &device_notes))
    output.device = target->id + " (" + target->name + ")";
  SendJson(res, 200, RenderColocationJson(PredictColocation(workloads, options), output));
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
