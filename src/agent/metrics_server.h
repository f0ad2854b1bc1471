// The agent's HTTP endpoint (cpp-httplib): GET /metrics (Prometheus text exposition of
// the newest pass), GET /healthz ("ok") and GET /api/v1/ring?since_ns=T (the in-memory
// ring's passes newer than T as JSON: what `kraken serve --agent URL` streams to the
// dashboard's live view before the agent's first commit). Everything else is 404. Listens on its own
// thread pool until Stop().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/status.h"

namespace kraken::agent {

class MetricsServer {
 public:
  using RenderFn = std::function<void(std::string& out)>;
  // Writes the ring's passes with time_ns > since_ns, the newest `max_passes` of them at
  // most, as JSON into `out`.
  using RingFn = std::function<void(int64_t since_ns, size_t max_passes, std::string& out)>;
  explicit MetricsServer(RenderFn render, RingFn ring = {});
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds HOST:PORT ("127.0.0.1:9400"; port 0 = a free one) and starts serving.
  Status Start(const std::string& listen);
  void Stop();
  int port() const { return port_; }
  const std::string& host() const { return host_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::thread thread_;
  std::string host_;
  int port_ = 0;
};

}  // namespace kraken::agent
