#include "agent/metrics_server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <limits>

#include "base/log.h"
#include "base/text.h"
#include "config/config.h"
#include "exporter/exposition.h"
#include "server/guarded_server.h"
#include "server/http_hardening.h"

namespace kraken::agent {

// A scraper or two: two workers plus one for the probes keep the agent's memory small;
// slow or idle connections wait in the front and hold no worker (server/guarded_server.h),
// so a few slow clients cannot stop the scrapes. Deadlines: 5 s for a request head (no
// route takes a body), 10 s for an answer to be taken.
server::ConnectionLimits MetricsLimits() {
  server::ConnectionLimits limits;
  limits.workers = 2;
  limits.probe_workers = 1;
  limits.max_streams = 0;
  limits.max_connections = 128;
  limits.head_timeout = std::chrono::seconds(5);
  limits.request_timeout = std::chrono::seconds(5);
  limits.write_timeout = std::chrono::seconds(10);
  limits.buffered_body_bytes = 0;
  limits.probe_paths = {"/metrics", "/healthz"};
  return limits;
}

struct MetricsServer::Impl {
  server::GuardedServer server{MetricsLimits()};
  RenderFn render;
  RingFn ring;
  std::atomic<bool> listen_returned{false};
};

MetricsServer::MetricsServer(RenderFn render, RingFn ring) : impl_(std::make_unique<Impl>()) {
  impl_->render = std::move(render);
  impl_->ring = std::move(ring);
  Impl* impl = impl_.get();
  // The front sets TCP_NODELAY on every connection: without it a keep-alive scrape's last
  // segment waits for the client's delayed ACK (~40 ms; 138 scrapes/s with wrk, docs/agent.md).
  // No route takes a body: any is refused before a byte of it is read (a 2.5 GB POST to
  // /metrics was once read whole), and a second agent cannot share the port (the shared
  // hardening sets SO_REUSEADDR without SO_REUSEPORT).
  server::HttpHardening hardening;
  hardening.max_body_bytes = 0;
  hardening.send_error = [](const httplib::Request&, httplib::Response& res, int status, std::string_view,
                            std::string_view message) {
    res.status = status;
    res.set_content(std::string(message) + "\n", "text/plain");
  };
  server::ApplyHttpHardening(impl_->server, std::move(hardening));
  impl_->server.Get("/metrics", [impl](const httplib::Request&, httplib::Response& response) {
    // One buffer per handler thread: its capacity is kept from scrape to scrape.
    thread_local std::string text;
    impl->render(text);
    response.set_content(text, exporter::kExpositionContentType);
  });
  impl_->server.Get("/api/v1/ring", [impl](const httplib::Request& request, httplib::Response& response) {
    if (!impl->ring) {
      response.status = 404;
      return response.set_content("this agent serves no ring\n", "text/plain");
    }
    int64_t since_ns = 0;
    if (request.has_param("since_ns")) {
      auto parsed = ParseInt64(request.get_param_value("since_ns"));
      if (!parsed) {
        response.status = 400;
        return response.set_content("since_ns must be an integer (Unix ns)\n", "text/plain");
      }
      since_ns = *parsed;
    }
    // A client that wants only the newest pass (kraken serve's live view) says so: the whole
    // ring is megabytes, which a busy agent may not answer within the client's deadline.
    size_t max_passes = std::numeric_limits<size_t>::max();
    if (request.has_param("max_passes")) {
      auto parsed = ParseInt64(request.get_param_value("max_passes"));
      if (!parsed || *parsed < 1) {
        response.status = 400;
        return response.set_content("max_passes must be a positive integer\n", "text/plain");
      }
      max_passes = static_cast<size_t>(*parsed);
    }
    std::string json;
    impl->ring(since_ns, max_passes, json);
    response.set_content(json, "application/json");
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
    return IoError(address.port == 0 ? "cannot listen on " + listen + " (address not local?)"
                                     : server::ListenFailureReason(address.host, address.port));
  thread_ = std::thread([this] {
    impl_->server.listen_after_bind();
    impl_->listen_returned = true;
  });
  return Status::Ok();
}

void MetricsServer::Stop() {
  if (!thread_.joinable()) return;
  // httplib's stop() does nothing before the accept loop runs, which would then never end:
  // a Stop() right after Start() waits for it first.
  while (!impl_->server.is_running() && !impl_->listen_returned)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server.stop();
  thread_.join();
}

}  // namespace kraken::agent
