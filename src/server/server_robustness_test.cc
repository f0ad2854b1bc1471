// What the server does with bad input, writes without the token, bodies over the limit
// and many clients at once: a JSON error with the right status, never a crash or a hang.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>
#include <vector>

#include "server/test_server.h"

namespace kraken::server {
namespace {

using testing::ErrorCode;
using testing::TestServer;

TEST(ServerRobustnessTest, UnknownPathsAndIdsAreJsonNotFound) {
  TestServer server;
  auto client = server.Client();
  for (const char* path : {"/nope", "/api/v1/profiles/abc", "/api/v1/profiles/0", "/api/v1/profiles/42",
                           "/api/v1/profiles/42/analysis", "/api/v1/profiles/42/disagg",
                           "/api/v1/profiles/99999999999999999999999"}) {
    auto res = client->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path;
    EXPECT_EQ(ErrorCode(res->body), "not_found") << path << ": " << res->body;
  }
}

TEST(ServerRobustnessTest, BadQueryParametersAre400) {
  TestServer server;
  auto client = server.Client();
  for (const char* path : {"/api/v1/colocate?a=resnet50", "/api/v1/colocate?a=resnet50&b=bert&device=abacus",
                           "/api/v1/cluster?threshold_pct=101", "/api/v1/cluster?threshold_pct=x"}) {
    auto res = client->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 400) << path << ": " << res->body;
    EXPECT_EQ(ErrorCode(res->body), "bad_request") << path;
  }
  // vgg16 has no measured kernel list: the versioned colocate refuses to guess.
  auto unmeasured = client->Get("/api/v1/colocate?a=resnet50&b=vgg16");
  ASSERT_TRUE(unmeasured);
  EXPECT_EQ(unmeasured->status, 422);
  auto unknown = client->Get("/api/v1/colocate?a=resnet50&b=77");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

// The cluster comes in the body (pack_api_test.cc has the full cases).
TEST(ServerRobustnessTest, PackWithoutAClusterIs400) {
  TestServer server;
  auto res = server.Client()->Post("/api/v1/pack", "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(ErrorCode(res->body), "bad_request");
  EXPECT_NE(res->body.find("'nodes_csv' is required"), std::string::npos) << res->body;
}

TEST(ServerRobustnessTest, BadTemporalRequests) {
  TestServer server;
  auto client = server.Client();
  const std::pair<const char*, int> cases[] = {
      {"{", 400},                                        // not JSON
      {"[1]", 400},                                      // not an object
      {"{}", 400},                                       // no profile_id
      {R"({"profile_id":1.5})", 400},                    // not an id
      {R"({"profile_id":3,"horizon":"soon"})", 400},     // bad horizon, before the store
      {R"({"profile_id":3,"series":[1,2]})", 400},       // selectors must be strings
      {R"({"profile_id":3})", 404},                      // no such profile
  };
  for (const auto& [body, status] : cases) {
    auto res = client->Post("/api/v1/temporal", body, "application/json");
    ASSERT_TRUE(res) << body;
    EXPECT_EQ(res->status, status) << body << ": " << res->body;
  }
  auto form = client->Post("/api/v1/temporal", "profile_id=3", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
}

TEST(ServerRobustnessTest, WritesNeedTheTokenWhenOneIsSet) {
  ServeOptions options;
  options.token = "s3cret-token";
  TestServer server(options);
  auto client = server.Client();
  const char* body = R"({"workload_id":"w","kernel_type":"MIXED"})";
  auto none = client->Post("/register", body, "application/json");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(ErrorCode(none->body), "unauthorized");
  auto wrong = client->Post("/register", {{"Authorization", "Bearer s3cret-tokem"}}, body, "application/json");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto right = client->Post("/register", {{"Authorization", "Bearer s3cret-token"}}, body, "application/json");
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200);
  auto upload = server.Client()->Post("/api/v1/profiles", "x", "application/octet-stream");
  ASSERT_TRUE(upload);
  EXPECT_EQ(upload->status, 401);
  auto read = server.Client()->Get("/profile/w");  // reads stay open
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
}

TEST(ServerRobustnessTest, BodiesOverTheLimitAre413) {
  ServeOptions options;
  options.max_body_bytes = 1000;
  TestServer server(options);
  std::string big(5000, 'x');
  auto sized = server.Client()->Post("/api/v1/profiles", big, "application/octet-stream");
  ASSERT_TRUE(sized);
  EXPECT_EQ(sized->status, 413);
  EXPECT_EQ(ErrorCode(sized->body), "payload_too_large");
  // Chunked, no Content-Length: refused while streaming.
  auto chunked = server.Client()->Post(
      "/api/v1/profiles",
      [&](size_t offset, httplib::DataSink& sink) {
        if (offset >= big.size()) {
          sink.done();
          return true;
        }
        sink.write(big.data() + offset, 500);
        return true;
      },
      "application/octet-stream");
  ASSERT_TRUE(chunked);
  EXPECT_EQ(chunked->status, 413);
  auto json = server.Client()->Post("/register", big, "application/json");
  ASSERT_TRUE(json);
  EXPECT_EQ(json->status, 413);
  EXPECT_EQ(ErrorCode(json->body), "payload_too_large");
}

TEST(ServerRobustnessTest, UploadsThatAreNotProfiles) {
  TestServer server;
  auto client = server.Client();
  auto garbage = client->Post("/api/v1/profiles?name=notes.txt", "hello, this is not a profile\n", "text/plain");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 422) << garbage->body;
  EXPECT_EQ(ErrorCode(garbage->body), "unprocessable");
  EXPECT_EQ(garbage->body.find("kraken-upload-"), std::string::npos) << "temp path leaked: " << garbage->body;
  auto truncated_gzip = client->Post("/api/v1/profiles?name=t.json.gz", std::string("\x1f\x8b\x08\x00", 4),
                                     "application/gzip");
  ASSERT_TRUE(truncated_gzip);
  EXPECT_EQ(truncated_gzip->status, 422) << truncated_gzip->body;
  auto empty = client->Post("/api/v1/profiles", "", "application/octet-stream");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 400);
  auto multipart = client->Post("/api/v1/profiles", "--x\r\n", "multipart/form-data; boundary=x");
  ASSERT_TRUE(multipart);
  EXPECT_EQ(multipart->status, 415);
  auto listed = client->Get("/api/v1/profiles");
  ASSERT_TRUE(listed);
  EXPECT_NE(listed->body.find("\"count\":0"), std::string::npos) << listed->body;
}

TEST(ServerRobustnessTest, ConcurrentReadsAndWritesAllSucceed) {
  TestServer server;
  constexpr int kThreads = 8;
  constexpr int kRounds = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto client = server.Client();
      for (int i = 0; i < kRounds; ++i) {
        // Appended piece by piece: GCC 12's -Wrestrict misfires on "w" + std::to_string(t).
        std::string id = std::to_string(t);
        id.insert(id.begin(), 'w');
        id += '-';
        id += std::to_string(i);
        auto reg = client->Post("/register", "{\"workload_id\":\"" + id + "\",\"arithmetic_intensity\":60}",
                                "application/json");
        auto colo = client->Get(("/colocation?a=resnet50&b=" + id).c_str());
        auto prof = client->Get("/profile/resnet50");
        auto list = client->Get("/api/v1/profiles");
        for (const auto* res : {&reg, &colo, &prof, &list})
          if (!*res || (*res)->status != 200) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto all = server.Client()->Get("/profiles");
  ASSERT_TRUE(all);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.parse(all->body).get(root), simdjson::SUCCESS);
  EXPECT_EQ(int64_t(root["count"]), 5 + kThreads * kRounds);
}

}  // namespace
}  // namespace kraken::server
