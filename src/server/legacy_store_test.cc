// The legacy API beyond the legacy service: registered workloads kept in the store across
// restarts, a workload registered from a stored measurement (an upload), and the SMs that
// sm_partition divides (--legacy-sms, --device).
#include <gtest/gtest.h>

#include "server/test_server.h"
#include "server/test_upload.h"

namespace kraken::server {
namespace {

using testing::ParseJson;
using testing::ServerWithUpload;
using testing::TestServer;

constexpr char kSgemmNcu[] = "ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv";

TEST(LegacyStoreTest, RegisteredWorkloadsOutliveARestart) {
  ServeOptions options;
  options.db_path = kraken::testing::MakeTempDir("legacy-store") + "/kraken.db";
  {
    TestServer first(options);
    auto client = first.Client();
    auto reg = client->Post(
        "/register", R"({"workload_id":"etl","kernel_type":"MEMORY_BOUND","arithmetic_intensity":4.5,"description":"scan"})",
        "application/json");
    ASSERT_TRUE(reg);
    ASSERT_EQ(reg->status, 200) << reg->body;
    // A registration replaces a predefined id, and that is kept too.
    auto mine = client->Post("/profile", R"({"workload_id":"bert","model":"gpt2"})", "application/json");
    ASSERT_TRUE(mine);
    ASSERT_EQ(mine->status, 200) << mine->body;
  }
  TestServer second(options);
  auto client = second.Client();
  auto got = client->Get("/profile/etl");
  ASSERT_TRUE(got);
  ASSERT_EQ(got->status, 200) << got->body;
  simdjson::dom::parser parser;
  auto etl = ParseJson(parser, got->body)["profile"];
  EXPECT_EQ(std::string_view(etl["kernel_type"]), "MEMORY_BOUND");
  EXPECT_EQ(double(etl["arithmetic_intensity"]), 4.5);
  EXPECT_EQ(double(etl["compute_ratio"]), 0.33);
  EXPECT_EQ(std::string_view(etl["description"]), "scan");
  EXPECT_EQ(std::string_view(etl["source"]), "manual");
  EXPECT_FALSE(etl["profiled_at"].is_null());
  auto bert = client->Get("/profile/bert");
  ASSERT_TRUE(bert);
  EXPECT_EQ(double(ParseJson(parser, bert->body)["profile"]["arithmetic_intensity"]), 28);  // gpt2's entry
  auto all = client->Get("/profiles");
  ASSERT_TRUE(all);
  EXPECT_EQ(int64_t(ParseJson(parser, all->body)["count"]), 6);
}

TEST(LegacyStoreTest, RegisteringAStoredProfileServesItsMeasuredIntensity) {
  ServeOptions options;
  options.db_path = kraken::testing::MakeTempDir("legacy-measured") + "/kraken.db";
  int64_t id = 0;
  {
    ServerWithUpload loopback(kSgemmNcu, "sgemm_details.csv", options);
    ASSERT_GT(loopback.upload.id, 0);
    id = loopback.upload.id;
    auto& client = loopback.client;
    auto reg = client->Post("/register", "{\"workload_id\":\"sgemm\",\"profile_id\":" + std::to_string(id) + "}",
                            "application/json");
    ASSERT_TRUE(reg);
    ASSERT_EQ(reg->status, 200) << reg->body;
    auto missing = client->Post("/register", R"({"workload_id":"x","profile_id":999})", "application/json");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);
    auto fraction = client->Post("/register", R"({"workload_id":"x","profile_id":1.5})", "application/json");
    ASSERT_TRUE(fraction);
    EXPECT_EQ(fraction->status, 400);
  }
  TestServer restarted(options);
  auto got = restarted.Client()->Get("/profile/sgemm");
  ASSERT_TRUE(got);
  ASSERT_EQ(got->status, 200) << got->body;
  simdjson::dom::parser parser;
  auto profile = ParseJson(parser, got->body)["profile"];
  EXPECT_TRUE(bool(profile["measured"]));
  EXPECT_EQ(std::string_view(profile["source"]), "measured");
  // The CSV's three kernels: (fadd + fmul + 2 ffma) / dram__bytes.sum summed over them,
  // 73,021,154,918,400 FLOP / 818,402,825,216 bytes (the two randomInit launches and the GEMM).
  EXPECT_NEAR(double(profile["arithmetic_intensity"]), 89.22397707892519, 1e-6);
  std::string_view data_source = profile["data_source"];
  EXPECT_NE(data_source.find("stored profile " + std::to_string(id)), std::string_view::npos) << data_source;
  EXPECT_NE(data_source.find("arithmetic_intensity measured"), std::string_view::npos) << data_source;
  EXPECT_NEAR(double(profile["compute_ratio"]) + double(profile["memory_ratio"]) + double(profile["mixed_ratio"]), 1.0,
              1e-9);
}

TEST(LegacyStoreTest, LegacySmsAndDeviceSetTheSmsSplit) {
  ServeOptions sms;
  sms.legacy_sms = 108;
  TestServer by_count(sms);
  simdjson::dom::parser parser;
  auto res = by_count.Client()->Get("/colocation?a=resnet50&b=bert");
  ASSERT_TRUE(res);
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(int64_t(root["sm_total"]), 108);
  // 108 x 0.825 / 1.375 = 64.8.
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_a"]), 65);
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_b"]), 43);

  ServeOptions device;
  device.device = "h100-sxm";
  TestServer by_device(device);
  res = by_device.Client()->Get("/colocation?a=gpt2&b=nobody");
  ASSERT_TRUE(res);
  root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["device"]), "h100-sxm");
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_a"]), 66);  // equal halves of its 132 SMs
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_b"]), 66);
}

TEST(LegacyStoreTest, BadLegacyOptionsAreRefused) {
  for (auto [field, value, message] :
       {std::tuple{"legacy_profiles", "newest", "--legacy-profiles must be 'legacy' or 'measured'"},
        std::tuple{"device", "gtx9000", "--device: unknown device 'gtx9000'"},
        std::tuple{"legacy_sms", "1", "--legacy-sms must be 2..4096"}}) {
    ServeOptions options;
    options.db_path = kraken::testing::MakeTempDir("legacy-bad") + "/kraken.db";
    if (std::string(field) == "legacy_profiles") options.legacy_profiles = value;
    if (std::string(field) == "device") options.device = value;
    if (std::string(field) == "legacy_sms") options.legacy_sms = std::atoi(value);
    auto server = KrakenServer::Create(options);
    ASSERT_FALSE(server.ok()) << field;
    EXPECT_NE(server.status().message().find(message), std::string::npos) << server.status().message();
  }
}

}  // namespace
}  // namespace kraken::server
