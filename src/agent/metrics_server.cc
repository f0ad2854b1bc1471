#include "agent/metrics_server.h"

#include <httplib.h>

#include "base/log.h"
#include "config/config.h"
#include "exporter/exposition.h"

namespace kraken::agent {

struct MetricsServer::Impl {
  httplib::Server server;
  RenderFn render;
};

MetricsServer::MetricsServer(RenderFn render) : impl_(std::make_unique<Impl>()) {
  impl_->render = std::move(render);
  Impl* impl = impl_.get();
  // A few handler threads are plenty for a scraper or two and keep the agent's memory small
  // (httplib's default is one per core).
  impl_->server.new_task_queue = [] { return new httplib::ThreadPool(4); };
  // Without TCP_NODELAY a keep-alive scrape's last segment waits for the client's delayed
  // ACK (~40 ms): measured 138 scrapes/s with wrk, see docs/agent.md.
  impl_->server.set_tcp_nodelay(true);
  // httplib's default also sets SO_REUSEPORT, with which a second agent binds the same port
  // and silently takes half the scrapes (found by AgentCliTest); SO_REUSEADDR alone still
  // allows a restart while old connections sit in TIME_WAIT.
  impl_->server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  impl_->server.Get("/metrics", [impl](const httplib::Request&, httplib::Response& response) {
    // One buffer per handler thread: its capacity is kept from scrape to scrape.
    thread_local std::string text;
    impl->render(text);
    response.set_content(text, exporter::kExpositionContentType);
  });
  impl_->server.Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
}

MetricsServer::~MetricsServer() { Stop(); }

Status MetricsServer::Start(const std::string& listen) {
  KRAKEN_ASSIGN_OR_RETURN(config::ListenAddress address, config::ParseListenAddress(listen));
  host_ = address.host;
  if (address.port == 0) {
    port_ = impl_->server.bind_to_any_port(address.host);
    if (port_ < 0) port_ = 0;
  } else {
    port_ = impl_->server.bind_to_port(address.host, address.port) ? address.port : 0;
  }
  if (port_ == 0)
    return IoError("cannot listen on " + listen + " (address in use or not local?)");
  thread_ = std::thread([this] { impl_->server.listen_after_bind(); });
  return Status::Ok();
}

void MetricsServer::Stop() {
  if (!thread_.joinable()) return;
  impl_->server.stop();
  thread_.join();
}

}  // namespace kraken::agent
