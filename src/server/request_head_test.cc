// The connection front's reading of request heads (connection_front.h): what it needs to
// decide when a request is complete, from bytes a client controls.
#include <gtest/gtest.h>

#include <string>

#include "base/testing/slow_clients.h"
#include "server/request_head.h"
#include "server/test_server.h"

namespace kraken::server {
namespace {

TEST(RequestHeadTest, ReadsMethodPathLengthAndTheHeadsEnd) {
  std::string request = "POST /api/v1/pack?x=1 HTTP/1.1\r\nHost: a\r\ncontent-length:  12 \r\n\r\n{\"a\":1}";
  auto head = ParseRequestHead(request);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->method, "POST");
  EXPECT_EQ(head->path, "/api/v1/pack");
  EXPECT_EQ(head->head_bytes, request.find('{'));
  ASSERT_TRUE(head->content_length);
  EXPECT_EQ(*head->content_length, 12u);
  EXPECT_FALSE(head->chunked);
  EXPECT_EQ(head->headers.size(), 2u);
}

TEST(RequestHeadTest, IncompleteOddAndHostileHeads) {
  EXPECT_FALSE(ParseRequestHead("GET / HTTP/1.1\r\nHost: a\r\n"));  // not ended yet
  EXPECT_FALSE(ParseRequestHead(""));
  auto bare = ParseRequestHead("GET /health HTTP/1.0\nHost: a\n\n");  // bare line feeds
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->path, "/health");
  auto chunked = ParseRequestHead("POST /u HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n");
  ASSERT_TRUE(chunked);
  EXPECT_TRUE(chunked->chunked);
  EXPECT_TRUE(chunked->expect_continue);
  // Lengths that are not a plain byte count are left to cpp-httplib (and the hardening).
  for (const char* length : {"-1", "1e3", "99999999999999999999", "", "12 34"})
    EXPECT_FALSE(ParseRequestHead(std::string("POST / HTTP/1.1\r\nContent-Length: ") + length + "\r\n\r\n")->content_length)
        << length;
  auto garbage = ParseRequestHead(std::string("\x01\x02\r\n\r\n", 6));
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->method, "");
}

TEST(RequestHeadTest, AHeadOverTheLimitIs431) {
  testing::TestServer server;
  int sock = kraken::testing::ConnectLoopback(server.port());
  ASSERT_GE(sock, 0);
  std::string head = "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(40 * 1024, 'a') + "\r\n\r\n";
  (void)::send(sock, head.data(), head.size(), MSG_NOSIGNAL);
  timeval timeout{5, 0};
  ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::string answer;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(sock, buffer, sizeof(buffer), 0)) > 0;) answer.append(buffer, static_cast<size_t>(n));
  ::close(sock);
  EXPECT_EQ(answer.substr(0, 12), "HTTP/1.1 431") << answer.substr(0, 200);
  EXPECT_NE(answer.find("larger than 32768 bytes"), std::string::npos) << answer.substr(0, 300);
}

}  // namespace
}  // namespace kraken::server
