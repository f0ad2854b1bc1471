// The legacy scheduler endpoints over loopback against the real server: predefined
// profiles derived from Orion's real kernel lists, registration, profiling requests and
// the co-location answer of kraken's model.
#include <gtest/gtest.h>

#include "server/test_server.h"

namespace kraken::server {
namespace {

using testing::ParseJson;

using testing::ErrorCode;
using testing::TestServer;

TEST(LegacyApiTest, HealthNamesTheService) {
  TestServer server;
  auto res = server.Client()->Get("/health");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_TRUE(bool(root["ok"]));
  EXPECT_EQ(std::string_view(root["service"]), "kraken");
  EXPECT_EQ(res->get_header_value("Access-Control-Allow-Origin"), "*");  // as the legacy service
  auto preflight = server.Client()->Options("/register");
  ASSERT_TRUE(preflight);
  EXPECT_EQ(preflight->status, 204);
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Methods"), "GET,POST,OPTIONS");
}

TEST(LegacyApiTest, PredefinedProfilesComeFromOrionKernelLists) {
  TestServer server;
  auto res = server.Client()->Get("/profiles");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(int64_t(root["count"]), 5);
  auto resnet = root["profiles"]["resnet50"];
  EXPECT_TRUE(bool(resnet["measured"]));
  EXPECT_EQ(std::string_view(resnet["source"]), "measured");
  EXPECT_EQ(std::string_view(resnet["data_source"]), "orion/resnet50_4_fwd.csv");
  // Duration-weighted shares of Orion's labels in resnet50_4_fwd.csv (1 / 0 / -1).
  EXPECT_NEAR(double(resnet["compute_ratio"]), 0.7648183621136447, 1e-9);
  EXPECT_NEAR(double(resnet["memory_ratio"]), 0.20102751067027944, 1e-9);
  EXPECT_NEAR(double(resnet["mixed_ratio"]), 0.034154127216075775, 1e-9);
  EXPECT_EQ(std::string_view(resnet["kernel_type"]), "COMPUTE_BOUND");
  EXPECT_TRUE(resnet["arithmetic_intensity"].is_null());
  auto bert = root["profiles"]["bert"];
  EXPECT_NEAR(double(bert["compute_ratio"]), 0.8420244951506518, 1e-9);
  EXPECT_EQ(std::string_view(bert["kernel_type"]), "COMPUTE_BOUND");
  // No trace of VGG-16 in the project: the legacy table's values, marked as such.
  auto vgg = root["profiles"]["vgg16"];
  EXPECT_FALSE(bool(vgg["measured"]));
  EXPECT_EQ(std::string_view(vgg["source"]), "default");
  EXPECT_EQ(std::string_view(vgg["kernel_type"]), "COMPUTE_BOUND");
  EXPECT_NE(std::string_view(vgg["data_source"]).find("not measured"), std::string_view::npos);
}

TEST(LegacyApiTest, ProfileByIdAndUnknownId) {
  TestServer server;
  auto client = server.Client();
  auto res = client->Get("/profile/mobilenet");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["workload"]), "mobilenet");
  EXPECT_NEAR(double(root["profile"]["memory_ratio"]), 0.41008812727659183, 1e-9);
  auto missing = client->Get("/profile/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(ErrorCode(missing->body), "not_found");
  EXPECT_FALSE(bool(ParseJson(parser, missing->body)["ok"]));
}

TEST(LegacyApiTest, RegisterClassifiesByArithmeticIntensity) {
  TestServer server;
  auto client = server.Client();
  auto res = client->Post("/register", R"({"workload_id":"etl","arithmetic_intensity":4.5,"description":"scan"})",
                          "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto got = client->Get("/profile/etl");
  ASSERT_TRUE(got);
  simdjson::dom::parser parser;
  auto profile = ParseJson(parser, got->body)["profile"];
  EXPECT_EQ(std::string_view(profile["kernel_type"]), "MEMORY_BOUND");  // AI < 10
  EXPECT_EQ(double(profile["arithmetic_intensity"]), 4.5);
  EXPECT_EQ(std::string_view(profile["source"]), "manual");
  EXPECT_EQ(std::string_view(profile["description"]), "scan");

  auto bad = client->Post("/register", R"({"workload_id":"x","compute_ratio":3})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  auto no_id = client->Post("/register", R"({"kernel_type":"MIXED"})", "application/json");
  ASSERT_TRUE(no_id);
  EXPECT_EQ(no_id->status, 400);
  auto not_json = client->Post("/register", "{\"workload_id\":", "application/json");
  ASSERT_TRUE(not_json);
  EXPECT_EQ(not_json->status, 400);
  EXPECT_EQ(ErrorCode(not_json->body), "bad_json");
  auto wrong_type = client->Post("/register", "workload_id=x", "image/png");
  ASSERT_TRUE(wrong_type);
  EXPECT_EQ(wrong_type->status, 415);
}

TEST(LegacyApiTest, ProfileRequestCopiesThePredefinedModel) {
  TestServer server;
  auto client = server.Client();
  auto res = client->Post("/profile", R"({"workload_id":"job-7","model":"ResNet50"})", "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["workload"]), "job-7");
  EXPECT_EQ(std::string_view(root["note"]), "Used pre-defined profile");
  EXPECT_NEAR(double(root["profile"]["compute_ratio"]), 0.7648183621136447, 1e-9);
  auto unknown = client->Post("/profile", R"({"model":"llama"})", "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(std::string_view(ParseJson(parser, unknown->body)["profile"]["kernel_type"]), "UNKNOWN");
  auto empty = client->Post("/profile", "{}", "application/json");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 400);
}

TEST(LegacyApiTest, ColocationOfMeasuredWorkloadsUsesTheDemandModel) {
  TestServer server;
  auto client = server.Client();
  auto res = client->Get("/colocation?a=resnet50&b=bert");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["model"]), "measured");
  EXPECT_EQ(std::string_view(root["device"]), "v100-pcie");
  EXPECT_EQ(std::string_view(root["workload_a"]["type"]), "COMPUTE_BOUND");
  EXPECT_NEAR(double(root["colocation_score"]), 0.2314421417, 1e-9);
  EXPECT_EQ(std::string_view(root["recommendation"]), "poor");
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_a"]), 32);
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_b"]), 48);

  // The same pair through /api/v1/colocate: the same pair score.
  auto v1 = client->Get("/api/v1/colocate?a=resnet50&b=bert");
  ASSERT_TRUE(v1);
  ASSERT_EQ(v1->status, 200) << v1->body;
  simdjson::dom::parser parser2;
  auto doc = ParseJson(parser2, v1->body);
  simdjson::dom::array pairs;
  ASSERT_EQ(doc["pairs"].get(pairs), simdjson::SUCCESS) << v1->body.substr(0, 400);
  EXPECT_NEAR(double(pairs.at(0)["score"]), 0.2314421417, 1e-9);
}

TEST(LegacyApiTest, ColocationWithoutMeasurementsUsesTheClassTable) {
  TestServer server;
  auto client = server.Client();
  auto res = client->Get("/colocation?a=vgg16&b=gpt2");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["model"]), "class-table");
  EXPECT_EQ(double(root["colocation_score"]), 0.70);  // compute + mixed in the class-pair table
  EXPECT_EQ(std::string_view(root["recommendation"]), "good");
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_a"]), 40);  // half of the V100's 80 SMs
  auto missing = client->Get("/colocation?a=vgg16");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);
  auto unknown = client->Get("/colocation?a=vgg16&b=zzz");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

}  // namespace
}  // namespace kraken::server
