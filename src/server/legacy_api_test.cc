// The legacy scheduler endpoints over loopback against the real server: the legacy
// service's predefined table by default, kraken's Orion-derived measurements with
// --legacy-profiles measured, registration, profiling requests and /colocation.
#include <gtest/gtest.h>

#include "server/test_server.h"

namespace kraken::server {
namespace {

using testing::ErrorCode;
using testing::ParseJson;
using testing::TestServer;

ServeOptions MeasuredSetOptions() {
  ServeOptions options;
  options.legacy_profiles = "measured";
  return options;
}

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

TEST(LegacyApiTest, TrailingSlashesAreAcceptedAsTheLegacyServiceDid) {
  TestServer server;
  auto client = server.Client();
  for (const char* path : {"/health/", "/profiles/", "/profile/bert/", "/colocation/?a=resnet50&b=bert"}) {
    auto res = client->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
  }
  auto reg = client->Post("/register/", R"({"workload_id":"slash","kernel_type":"MIXED"})", "application/json");
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->status, 200) << reg->body;
  auto req = client->Post("/profile/", R"({"model":"gpt2"})", "application/json");
  ASSERT_TRUE(req);
  EXPECT_EQ(req->status, 200) << req->body;
  auto other = client->Get("/healthz");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
}

TEST(LegacyApiTest, DefaultProfilesAreTheLegacyServiceTable) {
  TestServer server;
  auto res = server.Client()->Get("/profiles");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(int64_t(root["count"]), 5);
  const struct {
    const char* id;
    const char* type;
    double ai;
  } table[] = {{"resnet50", "COMPUTE_BOUND", 85}, {"vgg16", "COMPUTE_BOUND", 90}, {"bert", "MIXED", 35},
               {"gpt2", "MIXED", 28},             {"mobilenet", "COMPUTE_BOUND", 65}};
  for (const auto& entry : table) {
    auto profile = root["profiles"][entry.id];
    EXPECT_EQ(std::string_view(profile["kernel_type"]), entry.type) << entry.id;
    EXPECT_EQ(double(profile["arithmetic_intensity"]), entry.ai) << entry.id;
    EXPECT_EQ(std::string_view(profile["source"]), "default") << entry.id;
    EXPECT_FALSE(bool(profile["measured"])) << entry.id;
    EXPECT_NE(std::string_view(profile["data_source"]).find("legacy table"), std::string_view::npos) << entry.id;
    EXPECT_TRUE(profile["profiled_at"].is_null());
  }
  // The class templates of docs/api-legacy.md ("The legacy table").
  auto resnet = root["profiles"]["resnet50"];
  EXPECT_EQ(double(resnet["compute_ratio"]), 0.75);
  EXPECT_EQ(double(resnet["memory_ratio"]), 0.10);
  EXPECT_EQ(double(resnet["mixed_ratio"]), 0.15);
  auto bert = root["profiles"]["bert"];
  EXPECT_EQ(double(bert["compute_ratio"]), 0.40);
  EXPECT_EQ(double(bert["memory_ratio"]), 0.30);
  EXPECT_EQ(double(bert["mixed_ratio"]), 0.30);
}

TEST(LegacyApiTest, MeasuredSetServesOrionSharesAndTheTablesIntensity) {
  TestServer server(MeasuredSetOptions());
  auto res = server.Client()->Get("/profiles");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  auto resnet = root["profiles"]["resnet50"];
  EXPECT_TRUE(bool(resnet["measured"]));
  EXPECT_EQ(std::string_view(resnet["source"]), "measured");
  std::string_view data_source = resnet["data_source"];
  EXPECT_EQ(data_source.find("orion/resnet50_4_fwd.csv"), 0u) << data_source;
  EXPECT_NE(data_source.find("the legacy table's 85"), std::string_view::npos) << data_source;
  // Duration-weighted shares of Orion's labels in resnet50_4_fwd.csv (1 / 0 / -1).
  EXPECT_NEAR(double(resnet["compute_ratio"]), 0.7648183621136447, 1e-9);
  EXPECT_NEAR(double(resnet["memory_ratio"]), 0.20102751067027944, 1e-9);
  EXPECT_NEAR(double(resnet["mixed_ratio"]), 0.034154127216075775, 1e-9);
  EXPECT_EQ(std::string_view(resnet["kernel_type"]), "COMPUTE_BOUND");
  // Orion's lists have no FLOP or byte counts: the table's AI, still a number.
  EXPECT_EQ(double(resnet["arithmetic_intensity"]), 85);
  auto bert = root["profiles"]["bert"];
  EXPECT_NEAR(double(bert["compute_ratio"]), 0.8420244951506518, 1e-9);
  EXPECT_EQ(std::string_view(bert["kernel_type"]), "COMPUTE_BOUND");
  auto mobilenet = root["profiles"]["mobilenet"];
  EXPECT_NEAR(double(mobilenet["memory_ratio"]), 0.41008812727659183, 1e-9);
  EXPECT_EQ(std::string_view(mobilenet["kernel_type"]), "MIXED");
  // No trace of VGG-16 in the project: the legacy table's values, marked as such.
  auto vgg = root["profiles"]["vgg16"];
  EXPECT_FALSE(bool(vgg["measured"]));
  EXPECT_EQ(std::string_view(vgg["source"]), "default");
  EXPECT_EQ(double(vgg["arithmetic_intensity"]), 90);
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
  EXPECT_EQ(std::string_view(root["profile"]["kernel_type"]), "COMPUTE_BOUND");
  EXPECT_EQ(double(root["profile"]["arithmetic_intensity"]), 65);
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
  auto negative = client->Post("/register", R"({"workload_id":"x","arithmetic_intensity":-1})", "application/json");
  ASSERT_TRUE(negative);
  EXPECT_EQ(negative->status, 400);
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

TEST(LegacyApiTest, RegisterWithoutRatiosStoresTheLegacyDefaults) {
  TestServer server;
  auto client = server.Client();
  auto res = client->Post("/register", R"({"workload_id":"bare"})", "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  simdjson::dom::parser parser;
  auto profile = ParseJson(parser, res->body)["profile"];
  EXPECT_EQ(double(profile["compute_ratio"]), 0.33);
  EXPECT_EQ(double(profile["memory_ratio"]), 0.33);
  EXPECT_EQ(double(profile["mixed_ratio"]), 0.34);
  EXPECT_EQ(std::string_view(profile["kernel_type"]), "UNKNOWN");
  EXPECT_EQ(double(profile["arithmetic_intensity"]), 0);  // a number, never null
  EXPECT_NE(std::string_view(profile["data_source"]).find("without arithmetic_intensity"), std::string_view::npos);
  auto partial = client->Post("/register", R"({"workload_id":"half","memory_ratio":0.9})", "application/json");
  ASSERT_TRUE(partial);
  auto half = ParseJson(parser, partial->body)["profile"];
  EXPECT_EQ(double(half["compute_ratio"]), 0.33);
  EXPECT_EQ(double(half["memory_ratio"]), 0.9);
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
  EXPECT_EQ(double(root["profile"]["arithmetic_intensity"]), 85);
  EXPECT_EQ(std::string_view(root["profile"]["source"]), "default");
  auto unknown = client->Post("/profile", R"({"model":"llama"})", "application/json");
  ASSERT_TRUE(unknown);
  auto llama = ParseJson(parser, unknown->body)["profile"];
  EXPECT_EQ(std::string_view(llama["kernel_type"]), "UNKNOWN");
  EXPECT_EQ(double(llama["arithmetic_intensity"]), 0);
  auto empty = client->Post("/profile", "{}", "application/json");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 400);
}

TEST(LegacyApiTest, ColocationSplitsTheLegacySmsByDemand) {
  TestServer server;
  auto client = server.Client();
  auto res = client->Get("/colocation?a=resnet50&b=bert");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["model"]), "class-table");
  EXPECT_EQ(std::string_view(root["workload_a"]["type"]), "COMPUTE_BOUND");
  EXPECT_EQ(std::string_view(root["workload_b"]["type"]), "MIXED");
  EXPECT_EQ(double(root["colocation_score"]), 0.70);  // compute + mixed in the class-pair table
  EXPECT_EQ(std::string_view(root["recommendation"]), "good");
  // 84 SMs by demand (compute + mixed/2): 0.825 : 0.55 -> 50.4 : 33.6.
  EXPECT_EQ(int64_t(root["sm_total"]), 84);
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_a"]), 50);
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_b"]), 34);
  EXPECT_TRUE(root["device"].is_null());
  // The other order gives the mirror image.
  auto swapped = client->Get("/colocation?a=bert&b=resnet50");
  ASSERT_TRUE(swapped);
  EXPECT_EQ(int64_t(ParseJson(parser, swapped->body)["sm_partition"]["workload_a"]), 34);
  auto missing = client->Get("/colocation?a=vgg16");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);
}

TEST(LegacyApiTest, UnknownIdsAreUnknownWorkloadsWithANeutralAnswer) {
  TestServer server;
  auto res = server.Client()->Get("/colocation?a=vgg16&b=zzz");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["workload_a"]["type"]), "COMPUTE_BOUND");
  EXPECT_EQ(std::string_view(root["workload_b"]["type"]), "UNKNOWN");
  EXPECT_EQ(double(root["colocation_score"]), 0.5);
  EXPECT_EQ(std::string_view(root["recommendation"]), "moderate");
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_a"]), 42);
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_b"]), 42);
}

TEST(LegacyApiTest, MeasuredSetUsesTheDemandModelOnTheLegacySms) {
  TestServer server(MeasuredSetOptions());
  auto client = server.Client();
  auto res = client->Get("/colocation?a=resnet50&b=bert");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["model"]), "measured");
  EXPECT_EQ(std::string_view(root["device"]), "v100-pcie");
  EXPECT_NEAR(double(root["colocation_score"]), 0.2314421417, 1e-9);
  EXPECT_EQ(std::string_view(root["recommendation"]), "poor");
  // The model's MPS shares on the V100 (32 : 48 of 80 SMs) applied to 84 SMs.
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_a"]), 34);
  EXPECT_EQ(int64_t(root["sm_partition"]["workload_b"]), 50);
}

TEST(LegacyApiTest, ApiV1ColocateKeepsTheMeasuredReferencesInBothSets) {
  for (const ServeOptions& options : {ServeOptions{}, MeasuredSetOptions()}) {
    TestServer server(options);
    auto v1 = server.Client()->Get("/api/v1/colocate?a=resnet50&b=bert");
    ASSERT_TRUE(v1);
    ASSERT_EQ(v1->status, 200) << v1->body;
    simdjson::dom::parser parser;
    auto doc = ParseJson(parser, v1->body);
    simdjson::dom::array pairs;
    ASSERT_EQ(doc["pairs"].get(pairs), simdjson::SUCCESS) << v1->body.substr(0, 400);
    EXPECT_NEAR(double(pairs.at(0)["score"]), 0.2314421417, 1e-9);
    auto table_only = server.Client()->Get("/api/v1/colocate?a=vgg16&b=bert");
    ASSERT_TRUE(table_only);
    EXPECT_EQ(table_only->status, 422);
  }
}

}  // namespace
}  // namespace kraken::server
