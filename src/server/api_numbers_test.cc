// Numbers in API bodies go through the one bounded parser (base/number_input.h): NaN,
// infinity, 1e999 and out-of-range values are a 400 with one line naming the field and
// its range, for each class of route (the versioned API, the legacy :7070 API).
#include <gtest/gtest.h>

#include <string>

#include "server/test_server.h"

namespace kraken::server {
namespace {

using testing::ErrorCode;
using testing::TestServer;

struct NumberCase {
  const char* path;
  std::string body;
  const char* message;
};

TEST(ApiNumbersTest, NonFiniteAndOutOfRangeFieldsAre400WithTheRange) {
  const std::string pack_lists = R"("nodes_csv":"sn,cpu_milli,memory_mib,gpu,model\nn,1000,1024,1,V100M32\n",)"
                                 R"("pods_csv":"name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,100,10,1,500\n",)";
  const NumberCase cases[] = {
      // The versioned API.
      {"/api/v1/temporal", R"({"profile_id":"inf"})", "'profile_id' must be a number in [1, 9007199254740992]"},
      {"/api/v1/temporal", R"({"profile_id":"nan"})", "'profile_id' must be a number in [1, 9007199254740992]"},
      {"/api/v1/temporal", R"({"profile_id":-3})", "'profile_id' must be a number in [1, 9007199254740992]"},
      {"/api/v1/pack", "{" + pack_lists + R"("tune":"1e999"})", "'tune' must be a number in [0, 5]"},
      {"/api/v1/pack", "{" + pack_lists + R"("threshold":"-inf"})", "'threshold' must be a number in [0, 100]"},
      {"/api/v1/pack", "{" + pack_lists + R"("explain_pod":[0,1e13]})", "'explain_pod' must be a number in [0, 1000000000000]"},
      // The legacy API.
      {"/register", R"({"workload_id":"w","compute_ratio":"nan"})", "'compute_ratio' must be a number in [0, 1]"},
      {"/register", R"({"workload_id":"w","memory_ratio":1.5})", "'memory_ratio' must be a number in [0, 1]"},
      {"/register", R"({"workload_id":"w","arithmetic_intensity":"inf"})",
       "'arithmetic_intensity' must be a number in [0, 1000000000000]"},
      {"/register", R"({"workload_id":"w","profile_id":"-inf"})", "'profile_id' must be a number in [1, 9007199254740992]"},
  };
  TestServer server;
  auto client = server.Client();
  for (const NumberCase& c : cases) {
    auto res = client->Post(c.path, c.body, "application/json");
    ASSERT_TRUE(res) << c.body;
    EXPECT_EQ(res->status, 400) << c.path << " " << c.body << ": " << res->body;
    EXPECT_EQ(ErrorCode(res->body), "bad_request") << res->body;
    EXPECT_NE(res->body.find(c.message), std::string::npos) << c.body << ": " << res->body;
    EXPECT_EQ(res->body.find("\\n"), std::string::npos) << "one line: " << res->body;
  }
  // In range, the same fields are taken (a number written as a string, as legacy clients do).
  auto ok = client->Post("/register", R"({"workload_id":"w","arithmetic_intensity":"85","compute_ratio":0.5})",
                         "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
}

}  // namespace
}  // namespace kraken::server
