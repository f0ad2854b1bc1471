// One client connection of a GuardedServer (guarded_server.h) and the httplib::Stream a
// worker serves one request through: the bytes the front already read come first, then
// the socket, read until one deadline for the whole request and written within one
// budget for the whole response (not a timeout per read or write).
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace kraken::server {

using GuardClock = std::chrono::steady_clock;

enum class RequestKind { kOrdinary, kProbe, kStream };

struct GuardedConnection {
  int fd = -1;
  std::string buffer;  // bytes read from the socket and not yet consumed by httplib
  size_t consumed = 0;
  // When the connection started waiting for its current request (accepted or returned).
  GuardClock::time_point waiting_since;
  // The current request: whether its first byte came, when, and the front's deadline.
  bool started = false;
  GuardClock::time_point request_started;
  GuardClock::time_point deadline;
  // Buffered bytes the request needs before a worker takes it; 0: head not complete.
  size_t need = 0;
  size_t reserved_body = 0;  // of the front's body budget, while the front reads the body
  RequestKind kind = RequestKind::kOrdinary;
  // The deadline for the rest of the request a worker reads itself (large bodies).
  GuardClock::time_point read_deadline;
  size_t served = 0;
  bool close_after_answer = false;  // a refusal left the body unread
  bool draining = false;            // answered and half-closed: the front reads until EOF

  std::string_view Unconsumed() const { return std::string_view(buffer).substr(consumed); }
  // Drops the consumed prefix and readies the connection for its next request.
  void ResetForNextRequest(GuardClock::time_point now);
};

// The connection the calling thread serves a request of; nullptr on other threads.
GuardedConnection*& CurrentGuardedConnection();

class GuardedStream final : public httplib::Stream {
 public:
  GuardedStream(GuardedConnection& conn, std::chrono::milliseconds write_budget)
      : conn_(conn), write_budget_left_(write_budget) {}

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return conn_.fd; }

  // A deadline passed or the socket failed: the connection cannot carry another request.
  bool failed() const { return failed_; }

 private:
  // Waits until the socket is ready for `events` within the time left; false when not.
  bool WaitReadable() const;
  bool WaitWritable() const;

  GuardedConnection& conn_;
  mutable std::chrono::milliseconds write_budget_left_;
  mutable bool failed_ = false;
};

}  // namespace kraken::server
