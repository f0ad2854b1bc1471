#include "server/kraken_server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <exception>

#include "base/text.h"
#include "model/device_catalog.h"
#include "server/guarded_server.h"
#include "server/http_hardening.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// Errors cpp-httplib answers by itself (no route, body over the limit, bad request
// line) get the same JSON shape as the routes' own.
void SendDefaultError(httplib::Response& res) {
  switch (res.status) {
    case 404:
      SendError(res, 404, "not_found", "no such endpoint (see /api/v1/openapi.json)");
      return;
    case 413:
      SendError(res, 413, "payload_too_large", "the body is larger than the server's --max-body");
      return;
    case 415:
      SendError(res, 415, "unsupported_media_type", "unsupported Content-Type");
      return;
    default:
      if (res.status >= 500) SendError(res, res.status, "internal", "internal error");
      else SendError(res, res.status, "bad_request", "bad request");
  }
}

// The legacy API's settings from the options; a bad value is a one-line error.
Result<LegacyConfig> MakeLegacyConfig(const ServeOptions& options) {
  LegacyConfig config;
  if (options.legacy_profiles == "measured") config.set = LegacyProfileSet::kMeasured;
  else if (options.legacy_profiles != "legacy")
    return InvalidInput("--legacy-profiles must be 'legacy' or 'measured', not '" + options.legacy_profiles + "'");
  if (!options.device.empty()) {
    config.device = FindDeviceSpec(options.device);
    if (config.device == nullptr)
      return InvalidInput("--device: unknown device '" + options.device + "' (see `kraken devices`)");
    config.sm_total = config.device->sm_count;
  }
  if (options.legacy_sms != 0) {
    if (options.legacy_sms < 2 || options.legacy_sms > 4096) return InvalidInput("--legacy-sms must be 2..4096");
    config.sm_total = options.legacy_sms;
  }
  return config;
}

// Every POST carries the token when one is set; the store writes (uploads, the legacy
// /profile and /register) are refused on an open non-loopback server; only uploads stream.
HttpHardening ServeHardening(const ServeOptions& options) {
  HttpHardening h;
  h.token = options.token;
  h.host = options.host;
  h.allow_open_writes = options.allow_open_writes;
  h.store_write_paths = {"/api/v1/profiles", "/profile", "/register"};
  h.max_body_bytes = options.max_body_bytes;
  h.streaming_body_paths = {"/api/v1/profiles"};
  h.send_error = [](const httplib::Request& req, httplib::Response& res, int status, std::string_view code,
                    std::string_view message) {
    // The legacy service's clients read "ok": false.
    SendError(res, status, code, message, /*legacy=*/!StartsWith(req.path, "/api/"));
  };
  return h;
}

// Connections (docs/limits.md, "HTTP servers"): --threads workers, one more for /health
// and /metrics, a quarter of --threads for /api/v1/live streams on threads of their own;
// --timeout is the deadline of a request head, three times it the whole request's.
ConnectionLimits ServeLimits(const ServeOptions& options) {
  ConnectionLimits limits;
  limits.workers = options.threads > 0 ? options.threads : 64;
  limits.probe_workers = 1;
  limits.max_streams = LiveStreamBudget(options);
  limits.max_connections = 512;
  limits.head_timeout = std::chrono::seconds(options.timeout_s);
  limits.request_timeout = std::chrono::seconds(3 * options.timeout_s);
  limits.write_timeout = std::chrono::seconds(3 * options.timeout_s);
  limits.max_body_bytes = static_cast<size_t>(std::max<int64_t>(options.max_body_bytes, 0));
  limits.probe_paths = {"/health", "/metrics"};
  limits.stream_paths = {"/api/v1/live"};
  limits.refusal_content_type = kJsonType;
  limits.refusal_body = [](int status, const std::string& message) {
    httplib::Response res;
    SendError(res, status, status == 503 ? "unavailable" : "bad_request", message);
    return res.body;
  };
  return limits;
}

}  // namespace

KrakenServer::~KrakenServer() {
  if (http_ != nullptr) Stop();
}

Result<std::unique_ptr<KrakenServer>> KrakenServer::Create(const ServeOptions& options) {
  std::unique_ptr<KrakenServer> server(new KrakenServer());
  server->ctx_ = std::make_unique<ServerContext>();
  ServerContext& ctx = *server->ctx_;
  ctx.options = options;
  KRAKEN_ASSIGN_OR_RETURN(LegacyConfig legacy, MakeLegacyConfig(options));
  ctx.store = std::make_unique<StorePool>(options.db_path);
  ctx.legacy = LegacyProfiles::LoadPredefined(options.reference_data_dir, legacy);
  {
    // Fails now, with the store's message, rather than on the first request.
    KRAKEN_ASSIGN_OR_RETURN(StorePool::Lease lease, ctx.store->Acquire());
    KRAKEN_RETURN_IF_ERROR(ctx.legacy->LoadRegistered(*lease));
  }

  // Idle and slow connections wait in the front, not on a worker thread (guarded_server.h);
  // TCP_NODELAY on every connection: a keep-alive client does not wait for the delayed ACK.
  server->http_ = std::make_unique<GuardedServer>(ServeLimits(options));
  httplib::Server& http = *server->http_;
  ApplyHttpHardening(http, ServeHardening(options));
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) SendDefaultError(res);
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    SendError(res, 500, "internal", "the request failed inside the server");
  });
  AddLegacyRoutes(http, ctx);
  AddProfileRoutes(http, ctx);
  AddColocateRoutes(http, ctx);
  AddUploadRoute(http, ctx);
  AddTemporalRoute(http, ctx);
  AddDiffRoute(http, ctx);
  AddTimelineRoute(http, ctx);
  AddPackRoute(http);
  AddBudgetRoute(http, ctx);
  AddLiveRoutes(http, ctx);
  AddStaticRoutes(http, ctx);
  return server;
}

Result<int> KrakenServer::Bind() {
  int port = ctx_->options.port;
  if (port == 0) {
    port = http_->bind_to_any_port(ctx_->options.host);
    if (port <= 0) return IoError("cannot listen on " + ctx_->options.host + " (any port)");
    return port;
  }
  if (!http_->bind_to_port(ctx_->options.host, port))
    return IoError(ListenFailureReason(ctx_->options.host, port));
  return port;
}

Status KrakenServer::Listen() {
  if (!http_->listen_after_bind()) return IoError("the listening socket failed");
  return Status::Ok();
}

void KrakenServer::Stop() {
  ctx_->stopping = true;
  http_->stop();
}

}  // namespace kraken::server
