// The HTTP side of the scheduler extender: POST {prefix}/filter and {prefix}/prioritize,
// JSON in and out, as kube-scheduler calls them (urlPrefix + filterVerb/prioritizeVerb in
// its KubeSchedulerConfiguration extenders list).
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "k8s/extender/scheduler_extender.h"
#include "k8s/extender/stored_profile.h"
#include "server/connection_limits.h"

namespace httplib {
class Server;
}

namespace kraken::k8s {

struct ExtenderServerOptions {
  std::string prefix;
  ExtenderOptions decide;
  // Called with DecisionsJson (every node's reason) for each filter and prioritize call;
  // the replies themselves stay exactly the protocol's. Empty: no log.
  std::function<void(const std::string& verb, const std::string& decisions_json)> log;
  // The pod's workload's stored GpuWorkloadProfile (stored_profile.h); empty: not read.
  WorkloadProfileLookup profiles;
};

// Registers the two verbs, POST {prefix}/explain (the decisions with their reasons, for
// debugging; not part of the scheduler's protocol) and GET {prefix}/healthz on `server`.
// A body that is not ExtenderArgs gets HTTP 400 with {"error": "..."}.
void AddExtenderRoutes(httplib::Server& server, const ExtenderServerOptions& options);
inline void AddExtenderRoutes(httplib::Server& server, const std::string& prefix = "") {
  ExtenderServerOptions options;
  options.prefix = prefix;
  AddExtenderRoutes(server, options);
}

// The shared HTTP hardening (server/http_hardening.h) for an extender listening on `host`:
// bodies up to kMaxExtenderBodyBytes with a Content-Length, no Content-Encoding, the port
// not shared with another process.
void HardenExtenderServer(httplib::Server& server, const std::string& host);

// The connection limits of the extender's server (server/guarded_server.h): 8 workers and
// one for {prefix}/healthz; a request must be in within 10 s of its first byte.
server::ConnectionLimits ExtenderConnectionLimits(const std::string& prefix);

// Listens on host:port and serves the routes until SIGINT or SIGTERM; `on_listening` is
// called once the port is bound. IoError when the port cannot be bound.
Status ServeExtender(const std::string& host, int port, const ExtenderServerOptions& options,
                     const std::function<void()>& on_listening);

}  // namespace kraken::k8s
