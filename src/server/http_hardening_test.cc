// The shared HTTP hardening (http_hardening.h) on the real `kraken serve` over loopback:
// the token on every POST, open writes refused on a non-loopback address, bodies refused
// before they are read (chunked, compressed, over the limit, without a length) and a
// second server refused on a port that is taken.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/http_hardening.h"
#include "server/test_server.h"

namespace kraken::server {
namespace {

using testing::ErrorCode;
using testing::TestServer;

// Sends `request` as raw bytes (the body may be left out on purpose) and returns what the
// server answers until it closes the connection or 5 s pass.
std::string RawExchange(int port, const std::string& request) {
  int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(sock);
    return "";
  }
  timeval timeout{5, 0};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  (void)::send(sock, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(sock, buffer, sizeof(buffer), 0)) > 0;) answer.append(buffer, static_cast<size_t>(n));
  ::close(sock);
  return answer;
}

int StatusOf(const std::string& answer) { return answer.size() > 12 ? std::atoi(answer.c_str() + 9) : 0; }

TEST(HttpHardeningTest, EveryPostNeedsTheTokenWhenOneIsSet) {
  ServeOptions options;
  options.token = "hardening-token";
  TestServer server(options);
  auto client = server.Client();
  for (const char* path : {"/api/v1/pack", "/api/v1/temporal", "/api/v1/profiles", "/profile", "/register"}) {
    auto refused = client->Post(path, "{}", "application/json");
    ASSERT_TRUE(refused) << path;
    EXPECT_EQ(refused->status, 401) << path << ": " << refused->body;
    EXPECT_EQ(ErrorCode(refused->body), "unauthorized") << path;
  }
  // With the token the request reaches its route (which finds the empty body wanting).
  httplib::Headers auth = {{"Authorization", "Bearer hardening-token"}};
  for (const char* path : {"/api/v1/pack", "/api/v1/temporal"}) {
    auto passed = client->Post(path, auth, "{}", "application/json");
    ASSERT_TRUE(passed) << path;
    EXPECT_EQ(passed->status, 400) << path << ": " << passed->body;
  }
  auto health = client->Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST(HttpHardeningTest, OpenStoreWritesAreRefusedOnANonLoopbackAddress) {
  ServeOptions options;
  options.host = "0.0.0.0";
  TestServer open_server(options, /*keep_host=*/true);
  auto client = open_server.Client();
  for (const char* path : {"/api/v1/profiles", "/register", "/profile"}) {
    auto refused = client->Post(path, "{}", "application/json");
    ASSERT_TRUE(refused) << path;
    EXPECT_EQ(refused->status, 403) << path << ": " << refused->body;
    EXPECT_NE(refused->body.find("--allow-open-writes"), std::string::npos) << refused->body;
  }
  // Computations that store nothing stay open; so do reads.
  auto pack = client->Post("/api/v1/pack", "{}", "application/json");
  ASSERT_TRUE(pack);
  EXPECT_EQ(pack->status, 400) << pack->body;
  EXPECT_EQ(client->Get("/api/v1/profiles")->status, 200);

  options.allow_open_writes = true;
  TestServer allowed(options, /*keep_host=*/true);
  auto write = allowed.Client()->Post("/register", "{}", "application/json");
  ASSERT_TRUE(write);
  EXPECT_NE(write->status, 403) << write->body;
  EXPECT_NE(write->status, 401) << write->body;
}

TEST(HttpHardeningTest, BodiesAreRefusedBeforeTheyAreRead) {
  ServeOptions options;
  options.max_body_bytes = 4096;
  TestServer server(options);
  const std::string head = "POST /api/v1/pack HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
  auto started = std::chrono::steady_clock::now();
  // Chunked: httplib would append chunks to memory without any limit.
  std::string chunked = RawExchange(server.port(), head + "Transfer-Encoding: chunked\r\n\r\n1000\r\n");
  EXPECT_EQ(StatusOf(chunked), 411) << chunked;
  EXPECT_NE(chunked.find("length_required"), std::string::npos) << chunked;
  // Compressed: 1 MB of gzip would inflate far past the limit.
  std::string gzip = RawExchange(server.port(), head + "Content-Encoding: gzip\r\nContent-Length: 10\r\n\r\n");
  EXPECT_EQ(StatusOf(gzip), 415) << gzip;
  // Announced over the limit: answered at once, the 10 GB never awaited.
  std::string huge = RawExchange(server.port(), head + "Content-Length: 10000000000\r\n\r\n{");
  EXPECT_EQ(StatusOf(huge), 413) << huge;
  EXPECT_NE(huge.find("the limit is 4096"), std::string::npos) << huge;
  // No length at all: httplib would read until the client closes.
  std::string unbounded = RawExchange(server.port(), head + "\r\n{");
  EXPECT_EQ(StatusOf(unbounded), 411) << unbounded;
  // Each refusal closed its connection at once instead of waiting for the body.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
  // A GET carrying a body is refused too (the agent's /metrics once read 2.5 GB).
  std::string get = RawExchange(server.port(), "GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n");
  EXPECT_EQ(StatusOf(get), 413) << get;
}

TEST(HttpHardeningTest, UploadsStreamChunkedBodiesUpToTheLimit) {
  ServeOptions options;
  options.max_body_bytes = 4096;
  TestServer server(options);
  std::string request =
      "POST /api/v1/profiles HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 8; ++i) request += "400\r\n" + std::string(1024, 'x') + "\r\n";
  request += "0\r\n\r\n";
  std::string answer = RawExchange(server.port(), request);
  EXPECT_EQ(StatusOf(answer), 413) << answer;
  EXPECT_NE(answer.find("limit of 4096"), std::string::npos) << answer;
}

TEST(HttpHardeningTest, ASecondServerOnATakenPortIsRefused) {
  TestServer first;
  ServeOptions options = first.options();
  options.port = first.port();
  options.db_path = kraken::testing::MakeTempDir("serve-second") + "/kraken.db";
  auto second = KrakenServer::Create(options);
  ASSERT_TRUE(second.ok()) << second.status().message();
  auto port = (*second)->Bind();
  ASSERT_FALSE(port.ok()) << "a second server bound port " << first.port();
  EXPECT_NE(port.status().message().find("already in use by another process"), std::string::npos)
      << port.status().message();
}

// Opens GET /api/v1/live and returns the socket once the response headers are in (the
// stream stays open), with the status in *status; -1 when the connection failed.
int OpenLiveStream(int port, int* status) {
  int sock = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(sock);
    return -1;
  }
  timeval timeout{5, 0};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string request = "GET /api/v1/live HTTP/1.1\r\nHost: x\r\n\r\n";
  (void)::send(sock, request.data(), request.size(), MSG_NOSIGNAL);
  std::string head;
  char buffer[1024];
  for (ssize_t n; head.find("\r\n\r\n") == std::string::npos && (n = ::recv(sock, buffer, sizeof(buffer), 0)) > 0;)
    head.append(buffer, static_cast<size_t>(n));
  *status = StatusOf(head);
  return sock;
}

TEST(HttpHardeningTest, LiveStreamsHaveTheirOwnBudgetAndHealthStaysAnswerable) {
  ServeOptions options;
  options.threads = 8;  // a budget of 2 streams
  TestServer server(options);
  std::vector<int> streams;
  for (int i = 0; i < 2; ++i) {
    int status = 0;
    streams.push_back(OpenLiveStream(server.port(), &status));
    EXPECT_EQ(status, 200) << "stream " << i;
  }
  int refused_status = 0;
  int refused = OpenLiveStream(server.port(), &refused_status);
  EXPECT_EQ(refused_status, 503);
  ::close(refused);
  auto client = server.Client();
  for (int i = 0; i < 5; ++i) {
    auto health = client->Get("/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
  }
  // A closed stream gives its place back (within the stream's 100 ms check).
  ::close(streams.back());
  streams.pop_back();
  int again_status = 0;
  for (int i = 0; i < 30 && again_status != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int again = OpenLiveStream(server.port(), &again_status);
    if (again_status == 200) streams.push_back(again);
    else ::close(again);
  }
  EXPECT_EQ(again_status, 200);
  for (int sock : streams) ::close(sock);
}

TEST(HttpHardeningTest, LoopbackHostsAreRecognised) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "localhost", "::1"}) EXPECT_TRUE(IsLoopbackHost(host)) << host;
  for (const char* host : {"0.0.0.0", "10.0.0.7", "::", "example.org", ""}) EXPECT_FALSE(IsLoopbackHost(host)) << host;
}

}  // namespace
}  // namespace kraken::server
