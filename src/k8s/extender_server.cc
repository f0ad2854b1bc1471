#include "k8s/extender_server.h"

#include <httplib.h>

#include <csignal>

#include "base/json_writer.h"

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

Status ServeExtender(const std::string& host, int port, const ExtenderServerOptions& options,
                     const std::function<void()>& on_listening) {
  httplib::Server server;
  AddExtenderRoutes(server, options);
  if (!server.bind_to_port(host, port)) return IoError("cannot listen on " + host + ":" + std::to_string(port));
  g_server = &server;
  std::signal(SIGINT, StopOnSignal);
  std::signal(SIGTERM, StopOnSignal);
  if (on_listening) on_listening();
  server.listen_after_bind();
  g_server = nullptr;
  return Status::Ok();
}

}  // namespace kraken::k8s
