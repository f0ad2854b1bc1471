// The limits of a GuardedServer's connections (guarded_server.h; docs/limits.md, "HTTP
// servers"), apart so that servers' option code need not include cpp-httplib.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace httplib {
struct Request;
}

namespace kraken::server {

struct ConnectionLimits {
  int workers = 8;
  int probe_workers = 1;
  int max_streams = 16;
  int max_connections = 512;
  // An open connection may wait this long for its next request's first byte.
  std::chrono::milliseconds idle_timeout{5000};
  // The request line and headers must be complete this long after their first byte.
  std::chrono::milliseconds head_timeout{10000};
  // The whole request (head and body) must be in this long after its first byte, plus
  // one second per MiB of declared body (large uploads; chunked: of max_body_bytes).
  std::chrono::milliseconds request_timeout{30000};
  // A response may spend this long in all waiting for the client to take its bytes.
  std::chrono::milliseconds write_timeout{30000};
  size_t max_head_bytes = 32 * 1024;
  // Bodies up to this size are read by the front before a worker sees the request.
  size_t buffered_body_bytes = 1 << 20;
  size_t keep_alive_max_requests = 10000;
  // Exact paths (query ignored); a trailing '/' matches a prefix.
  std::vector<std::string> probe_paths;
  std::vector<std::string> stream_paths;
  // Chunked bodies get the time of a body this large (0: none).
  size_t max_body_bytes = 0;
  // The body and Content-Type of the front's own refusals (408, 431, 503); empty: the
  // message as plain text.
  std::function<std::string(int status, const std::string& message)> refusal_body;
  std::string refusal_content_type = "text/plain";
  // True for a request (method, path and headers only) the server refuses whatever its
  // body (no token, Content-Encoding, ...): the front hands it on without waiting for the
  // body, so the refusal is not held up by a body that never comes.
  std::function<bool(const httplib::Request& head)> refused_before_body;
};

}  // namespace kraken::server
