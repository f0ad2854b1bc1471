#include "server/guarded_stream.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kraken::server {
namespace {

void AddressOf(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

int MillisecondsUntil(GuardClock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - GuardClock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30));
}

}  // namespace

GuardedConnection*& CurrentGuardedConnection() {
  thread_local GuardedConnection* current = nullptr;
  return current;
}

void GuardedConnection::ResetForNextRequest(GuardClock::time_point now) {
  buffer.erase(0, consumed);
  consumed = 0;
  waiting_since = now;
  started = false;
  need = 0;
  reserved_body = 0;
  kind = RequestKind::kOrdinary;
}

bool GuardedStream::WaitReadable() const {
  for (;;) {
    int left = MillisecondsUntil(conn_.read_deadline);
    if (left == 0) return false;
    pollfd wait{conn_.fd, POLLIN, 0};
    int n = poll(&wait, 1, left);
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

bool GuardedStream::WaitWritable() const {
  for (;;) {
    if (write_budget_left_.count() <= 0) return false;
    pollfd wait{conn_.fd, POLLOUT, 0};
    auto start = GuardClock::now();
    int n = poll(&wait, 1, static_cast<int>(write_budget_left_.count()));
    write_budget_left_ -= std::chrono::duration_cast<std::chrono::milliseconds>(GuardClock::now() - start);
    if (n > 0) return (wait.revents & (POLLERR | POLLHUP)) == 0;
    if (n == 0 || errno != EINTR) return false;
  }
}

bool GuardedStream::is_readable() const {
  if (!conn_.Unconsumed().empty()) return true;
  if (WaitReadable()) return true;
  failed_ = true;
  return false;
}

bool GuardedStream::is_writable() const {
  if (!WaitWritable()) {
    failed_ = true;
    return false;
  }
  // A client that closed its end is gone even though its socket still takes bytes.
  pollfd peek{conn_.fd, POLLIN, 0};
  if (poll(&peek, 1, 0) > 0) {
    char byte;
    if (recv(conn_.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) return false;
  }
  return true;
}

ssize_t GuardedStream::read(char* ptr, size_t size) {
  std::string_view buffered = conn_.Unconsumed();
  if (!buffered.empty()) {
    size_t n = std::min(size, buffered.size());
    std::memcpy(ptr, buffered.data(), n);
    conn_.consumed += n;
    return static_cast<ssize_t>(n);
  }
  for (;;) {
    ssize_t n = recv(conn_.fd, ptr, size, MSG_DONTWAIT);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if ((errno != EAGAIN && errno != EWOULDBLOCK) || !WaitReadable()) {
      failed_ = true;
      return -1;
    }
  }
}

ssize_t GuardedStream::write(const char* ptr, size_t size) {
  for (;;) {
    ssize_t n = send(conn_.fd, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if ((errno != EAGAIN && errno != EWOULDBLOCK) || !WaitWritable()) {
      failed_ = true;
      return -1;
    }
  }
}

void GuardedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage address{};
  socklen_t size = sizeof(address);
  if (getpeername(conn_.fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) AddressOf(address, ip, port);
}

void GuardedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage address{};
  socklen_t size = sizeof(address);
  if (getsockname(conn_.fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) AddressOf(address, ip, port);
}

}  // namespace kraken::server
