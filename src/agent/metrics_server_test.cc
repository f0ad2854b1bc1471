// The agent's /metrics endpoint under abuse, over loopback: a body is refused before it is
// read, the scrape still answers, and a second agent cannot share the port.
#include "agent/metrics_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "base/testing/slow_clients.h"

namespace kraken::agent {
namespace {

// Sends the raw bytes and returns the answer, until the server closes or 5 s pass.
std::string MetricsRawExchange(int port, const std::string& request) {
  int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    timeval timeout{5, 0};
    ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    (void)::send(sock, request.data(), request.size(), MSG_NOSIGNAL);
    char buffer[4096];
    for (ssize_t n; (n = ::recv(sock, buffer, sizeof(buffer), 0)) > 0;) answer.append(buffer, static_cast<size_t>(n));
  }
  ::close(sock);
  return answer;
}

TEST(MetricsServerTest, BodiesAreRefusedUnreadAndScrapesGoOn) {
  MetricsServer server([](std::string& out) { out = "kraken_up 1\n"; });
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  auto started = std::chrono::steady_clock::now();
  // 2.5 GB announced, a few bytes sent: refused at once, nothing awaited or buffered.
  std::string big = MetricsRawExchange(
      server.port(), "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2500000000\r\n\r\nkraken");
  EXPECT_EQ(big.substr(0, 12), "HTTP/1.1 413") << big;
  std::string chunked = MetricsRawExchange(
      server.port(), "POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n");
  EXPECT_EQ(chunked.substr(0, 12), "HTTP/1.1 411") << chunked;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  httplib::Client client("127.0.0.1", server.port());
  auto scrape = client.Get("/metrics");
  ASSERT_TRUE(scrape);
  EXPECT_EQ(scrape->status, 200);
  EXPECT_EQ(scrape->body, "kraken_up 1\n");
}

// Issue 15: 4 slow clients used to block the scrapes (the agent had 4 threads, each held
// by a connection). Slow heads wait in the connection front now, however many.
TEST(MetricsServerTest, SlowClientsDoNotStopTheScrapes) {
  MetricsServer server([](std::string& out) { out = "kraken_up 1\n"; });
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  for (int count : {4, 40}) {
    kraken::testing::SlowClients attack(server.port(), count, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ", 'a');
    ASSERT_EQ(attack.connected(), count);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int i = 0; i < 3; ++i) {
      int status = 0;
      EXPECT_LT(kraken::testing::ProbeSeconds(server.port(), "/metrics", &status), 2.0) << count << " slow clients";
      EXPECT_EQ(status, 200) << count << " slow clients";
    }
  }
}

TEST(MetricsServerTest, ASecondAgentCannotShareThePort) {
  MetricsServer first([](std::string& out) { out = "first\n"; });
  ASSERT_TRUE(first.Start("127.0.0.1:0").ok());
  MetricsServer second([](std::string& out) { out = "second\n"; });
  Status status = second.Start("127.0.0.1:" + std::to_string(first.port()));
  ASSERT_FALSE(status.ok()) << "a second agent bound port " << first.port();
  EXPECT_NE(status.message().find("already in use by another process"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace kraken::agent
