// An httplib::Server whose connections are kept by one "front" thread until a whole
// request has arrived, then served by a bounded pool (docs/limits.md, "HTTP servers"):
//   - the front reads request heads (and bodies up to buffered_body_bytes) without
//     blocking, for every connection at once, each with a deadline for the whole head and
//     the whole request, not per read: a slowloris client never holds a worker thread;
//   - `workers` threads serve complete requests; `probe_workers` more serve only the probe
//     paths (/health, /metrics), which also jump the queue: they answer while every
//     worker is busy;
//   - requests for the stream paths (server-sent events) get a thread of their own, at
//     most max_streams at once; more are refused with 503;
//   - a response may wait on a slow reader for write_timeout in all;
//   - beyond max_connections the connection waiting longest for its request is dropped.
// cpp-httplib 0.11 still parses and routes: the front hands it each request through a
// Stream that serves the buffered bytes first and enforces the deadlines on the socket.
#pragma once

#include <httplib.h>

#include "server/connection_limits.h"

namespace kraken::server {

class ConnectionFront;

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);
  ~GuardedServer() override;

  // Installs ConnectionLimits::refused_before_body (before listening).
  void SetRefusedBeforeBody(std::function<bool(const httplib::Request& head)> refused) {
    limits_.refused_before_body = std::move(refused);
  }

  // Marks the request being served on the calling thread's connection to be closed
  // once its answer is out (a refusal that left the body unread). False when the
  // calling thread serves no guarded connection.
  static bool CloseCurrentConnectionAfterAnswer();

 private:
  bool process_and_close_socket(socket_t sock) override;

  ConnectionLimits limits_;
  ConnectionFront* front_ = nullptr;  // the running listen loop's, owned by its task queue
};

}  // namespace kraken::server
