// Test helper: real slow clients over loopback, for the servers' abuse tests. Each opens a
// connection, sends `opening` at once, then one more byte every `interval` (a slowloris
// head, a body that trickles in) until the object is destroyed; `ProbeSeconds` times a
// GET on a fresh connection meanwhile.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace kraken::testing {

// A connected socket to 127.0.0.1:port, or -1.
inline int ConnectLoopback(int port) {
  int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (sock >= 0 && ::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) return sock;
  if (sock >= 0) ::close(sock);
  return -1;
}

class SlowClients {
 public:
  SlowClients(int port, int count, const std::string& opening, char drip,
              std::chrono::milliseconds interval = std::chrono::milliseconds(200))
      : drip_(drip), interval_(interval) {
    for (int i = 0; i < count; ++i) {
      int sock = ConnectLoopback(port);
      if (sock < 0) continue;
      (void)::send(sock, opening.data(), opening.size(), MSG_NOSIGNAL);
      sockets_.push_back(sock);
    }
    thread_ = std::thread([this] { Drip(); });
  }
  ~SlowClients() {
    stop_ = true;
    thread_.join();
    for (int sock : sockets_) ::close(sock);
  }
  SlowClients(const SlowClients&) = delete;
  SlowClients& operator=(const SlowClients&) = delete;

  int connected() const { return static_cast<int>(sockets_.size()); }
  // How many the server has closed (or answered) so far.
  int closed_by_server() const { return closed_.load(); }

 private:
  void Drip() {
    std::vector<bool> done(sockets_.size(), false);
    while (!stop_) {
      int closed = 0;
      for (size_t i = 0; i < sockets_.size(); ++i) {
        if (!done[i]) {
          pollfd readable{sockets_[i], POLLIN, 0};
          // Anything from the server (an answer, the end) means it let go of this one.
          if (::poll(&readable, 1, 0) > 0 || ::send(sockets_[i], &drip_, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
            done[i] = true;
        }
        closed += done[i] ? 1 : 0;
      }
      closed_ = closed;
      // In slices, so that the destructor never waits a whole long interval.
      auto next = std::chrono::steady_clock::now() + interval_;
      while (!stop_ && std::chrono::steady_clock::now() < next)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  char drip_;
  std::chrono::milliseconds interval_;
  std::vector<int> sockets_;
  std::atomic<bool> stop_{false};
  std::atomic<int> closed_{0};
  std::thread thread_;
};

// Seconds a "GET path" on a new connection takes to be answered (its status line in
// `status`, 0 when none came within `limit`); the connection is closed after.
inline double ProbeSeconds(int port, const std::string& path, int* status,
                           std::chrono::seconds limit = std::chrono::seconds(10)) {
  auto start = std::chrono::steady_clock::now();
  *status = 0;
  int sock = ConnectLoopback(port);
  if (sock < 0) return 1e9;
  timeval timeout{static_cast<time_t>(limit.count()), 0};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string request = "GET " + path + " HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n";
  (void)::send(sock, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  char buffer[4096];
  for (ssize_t n; answer.find("\r\n") == std::string::npos && (n = ::recv(sock, buffer, sizeof(buffer), 0)) > 0;)
    answer.append(buffer, static_cast<size_t>(n));
  ::close(sock);
  if (answer.size() > 12 && answer.compare(0, 5, "HTTP/") == 0) *status = std::atoi(answer.c_str() + 9);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace kraken::testing
