#include "k8s/extender/extender_server.h"

#include <httplib.h>

#include <chrono>
#include <csignal>

#include "base/json_writer.h"
#include "server/guarded_server.h"
#include "server/http_hardening.h"

namespace kraken::k8s {
namespace {

httplib::Server* g_server = nullptr;  // for the signal handler only

void StopOnSignal(int) {
  if (g_server != nullptr) g_server->stop();
}

void SendError(httplib::Response& res, const std::string& message) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Field("error", message).EndObject();
  res.status = 400;
  res.set_content(json.Take(), "application/json");
}

}  // namespace

void AddExtenderRoutes(httplib::Server& server, const ExtenderServerOptions& options) {
  // Each verb parses, decides, logs the reasons when asked and answers with `render`.
  auto verb = [options](const std::string& name, auto render) {
    return [options, name, render](const httplib::Request& req, httplib::Response& res) {
      auto request = ParseExtenderArgs(req.body);
      if (!request.ok()) return SendError(res, request.status().message());
      if (options.profiles) ApplyStoredProfile(options.profiles(request->pod_workload), &*request);
      std::vector<NodeDecision> decisions = DecideNodes(*request, options.decide);
      if (options.log) options.log(name, DecisionsJson(*request, decisions));
      res.set_content(render(*request, decisions), "application/json");
    };
  };
  server.Post(options.prefix + "/filter", verb("filter", FilterResponseJson));
  server.Post(options.prefix + "/prioritize",
              verb("prioritize", [](const ExtenderRequest&, const std::vector<NodeDecision>& d) {
                return PrioritizeResponseJson(d);
              }));
  server.Post(options.prefix + "/explain", verb("explain", DecisionsJson));
  server.Get(options.prefix + "/healthz",
             [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
}

void HardenExtenderServer(httplib::Server& server, const std::string& host) {
  // kube-scheduler sends neither a token nor compressed or chunked bodies: the shared
  // hardening bounds the body and keeps a second extender off the port.
  server::HttpHardening hardening;
  hardening.host = host;
  hardening.max_body_bytes = kMaxExtenderBodyBytes;
  hardening.send_error = [](const httplib::Request&, httplib::Response& res, int status, std::string_view,
                            std::string_view message) {
    SendError(res, std::string(message));
    res.status = status;
  };
  server::ApplyHttpHardening(server, std::move(hardening));
}

server::ConnectionLimits ExtenderConnectionLimits(const std::string& prefix) {
  server::ConnectionLimits limits;
  limits.workers = 8;
  limits.probe_workers = 1;
  limits.max_streams = 0;
  limits.max_connections = 256;
  // kube-scheduler's own extender timeout defaults to 5 s: a request that is not in after
  // 10 s is not a scheduler's; 5,000 nodes (a few MB) arrive in well under that.
  limits.head_timeout = std::chrono::seconds(10);
  limits.request_timeout = std::chrono::seconds(10);
  limits.write_timeout = std::chrono::seconds(10);
  limits.buffered_body_bytes = size_t{8} << 20;
  limits.probe_paths = {prefix + "/healthz"};
  limits.refusal_content_type = "application/json";
  limits.refusal_body = [](int, const std::string& message) {
    JsonWriter json(/*pretty=*/false);
    json.BeginObject().Field("error", message).EndObject();
    return json.Take();
  };
  return limits;
}

Status ServeExtender(const std::string& host, int port, const ExtenderServerOptions& options,
                     const std::function<void()>& on_listening) {
  server::GuardedServer server(ExtenderConnectionLimits(options.prefix));
  HardenExtenderServer(server, host);
  AddExtenderRoutes(server, options);
  if (!server.bind_to_port(host, port)) return IoError(server::ListenFailureReason(host, port));
  g_server = &server;
  std::signal(SIGINT, StopOnSignal);
  std::signal(SIGTERM, StopOnSignal);
  if (on_listening) on_listening();
  server.listen_after_bind();
  g_server = nullptr;
  return Status::Ok();
}

}  // namespace kraken::k8s
