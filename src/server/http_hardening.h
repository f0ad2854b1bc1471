// The one HTTP hardening layer `kraken serve`, the agent's /metrics endpoint and the
// scheduler extender share (docs/limits.md, "HTTP servers: security"):
//   - every POST (PUT, PATCH, DELETE) carries the bearer token when one is set; routes that
//     write the store are refused on a non-loopback address without a token unless the
//     operator said --allow-open-writes;
//   - a body is accepted only with a Content-Length within the limit (or, on the routes
//     that count bytes while streaming, chunked); Content-Encoding is refused, so nothing
//     inflates past the limit;
//   - the listening socket gets SO_REUSEADDR only: with httplib's default SO_REUSEPORT a
//     second instance binds the same port and takes half the requests.
// All of it runs in httplib's pre-routing handler, before any body byte is read.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::server {

struct HttpHardening {
  // Bearer token every POST/PUT/PATCH/DELETE must carry; empty: none.
  std::string token;
  // The address the server listens on: decides whether open writes are refused.
  std::string host;
  // --allow-open-writes: store writes without a token even on a non-loopback address.
  bool allow_open_writes = false;
  // Paths of the routes that change stored state (exact, or a prefix ending in '/').
  std::vector<std::string> store_write_paths;
  // Largest request body in bytes; 0: no route takes a body.
  int64_t max_body_bytes = 0;
  // Routes whose handlers read the body through a ContentReader and count the bytes
  // themselves: only these may send chunked bodies.
  std::vector<std::string> streaming_body_paths;
  // Answers a refusal in the server's own error shape.
  std::function<void(const httplib::Request&, httplib::Response&, int status, std::string_view code,
                     std::string_view message)>
      send_error;
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackHost(std::string_view host);

// True when no token is configured or the request carries "Authorization: Bearer <token>"
// (compared in constant time).
bool BearerTokenMatches(const httplib::Request& req, const std::string& token);

// Installs the pre-routing checks and the socket options on `server`.
void ApplyHttpHardening(httplib::Server& server, HttpHardening hardening);

// SO_REUSEADDR without SO_REUSEPORT, for servers that install nothing else.
void SetExclusivePortOptions(httplib::Server& server);

// "cannot listen on HOST:PORT: the port is already in use by another process" when the
// port is taken, else the generic reason; for the one-line startup error.
std::string ListenFailureReason(const std::string& host, int port);

}  // namespace kraken::server
