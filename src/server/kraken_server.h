// `kraken serve`: the REST API (docs/api.md) over the profile store, the legacy scheduler
// endpoints and the embedded dashboard, on cpp-httplib's thread pool.
//   auto server = KrakenServer::Create(options);   // opens the store, loads references
//   int port = server->Bind();                     // options.port, or any free port for 0
//   server->Listen();                              // blocks until Stop()
#pragma once

#include <memory>

#include "base/status.h"
#include "server/serve_options.h"

namespace httplib {
class Server;
}

namespace kraken::server {

struct ServerContext;

class KrakenServer {
 public:
  static Result<std::unique_ptr<KrakenServer>> Create(const ServeOptions& options);
  ~KrakenServer();

  // Binds the listening socket; returns the port.
  Result<int> Bind();
  // Serves until Stop(); an error when the socket failed.
  Status Listen();
  // Safe from any thread; open live streams end within a tenth of a second.
  void Stop();

 private:
  KrakenServer() = default;
  std::unique_ptr<ServerContext> ctx_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace kraken::server
