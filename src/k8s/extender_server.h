// The HTTP side of the scheduler extender: POST {prefix}/filter and {prefix}/prioritize,
// JSON in and out, as kube-scheduler calls them (urlPrefix + filterVerb/prioritizeVerb in
// its KubeSchedulerConfiguration extenders list).
#pragma once

#include <functional>
#include <string>

#include "base/status.h"

namespace httplib {
class Server;
}

namespace kraken::k8s {

// Registers the two verbs (and GET {prefix}/healthz) on `server`. A body that is not
// ExtenderArgs gets HTTP 400 with {"error": "..."}.
void AddExtenderRoutes(httplib::Server& server, const std::string& prefix = "");

// Listens on host:port and serves the routes until SIGINT or SIGTERM; `on_listening` is
// called once the port is bound. IoError when the port cannot be bound.
Status ServeExtender(const std::string& host, int port, const std::string& prefix,
                     const std::function<void()>& on_listening);

}  // namespace kraken::k8s
