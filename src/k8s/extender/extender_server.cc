#include "k8s/extender/extender_server.h"

#include <httplib.h>

#include <csignal>

#include "base/json_writer.h"
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

Status ServeExtender(const std::string& host, int port, const ExtenderServerOptions& options,
                     const std::function<void()>& on_listening) {
  httplib::Server server;
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
