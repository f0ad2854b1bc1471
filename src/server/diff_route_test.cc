// GET /api/v1/diff on the real server over loopback: two real traces uploaded, the answer
// compared byte for byte with the request layer's document for the same files.
#include <gtest/gtest.h>

#include "app/diff_request.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "server/test_server.h"
#include "server/test_upload.h"

namespace kraken::server {
namespace {

using testing::ErrorCode;
using testing::ParseJson;
using testing::TestServer;
using testing::UploadDataFile;

constexpr char kControl[] = "kineto/hta/trace_diff/control/control.json.gz";
constexpr char kTest[] = "kineto/hta/trace_diff/test/test.json.gz";
constexpr char kCpuOnly[] = "kineto/hta/rank_non_gpu/rank_non_gpu.json.gz";

// The stored profile's id (the name the traces have always been uploaded under).
int64_t UploadForDiff(httplib::Client& client, const char* relative) {
  return UploadDataFile(client, relative, "trace.json.gz").id;
}

std::vector<Profile> ImportForDiff(const char* relative) {
  auto imported = ImportFile(BuiltinImporters(), kraken::testing::DataPath(relative));
  EXPECT_TRUE(imported.ok());
  return imported.ok() ? std::move(*imported) : std::vector<Profile>{};
}

TEST(DiffRouteTest, AnswerIsTheDiffDocumentOfTheStoredProfiles) {
  TestServer server;
  auto client = server.Client();
  const int64_t a = UploadForDiff(*client, kControl);
  const int64_t b = UploadForDiff(*client, kTest);
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  auto res = client->Get(("/api/v1/diff?a=" + std::to_string(a) + "&b=" + std::to_string(b) + "&top=6").c_str());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body.substr(0, 300);
  DiffSettings settings;
  settings.top = 6;
  settings.a_name = "profile " + std::to_string(a);
  settings.b_name = "profile " + std::to_string(b);
  auto expected = RenderDiff(ImportForDiff(kControl), ImportForDiff(kTest), settings, /*json=*/true);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(res->body, *expected);
  simdjson::dom::parser parser;
  auto doc = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(doc["ranked"].at(0)["name"]), "aten::item");
  EXPECT_EQ(simdjson::dom::array(doc["ranked"]).size(), 6u);
}

TEST(DiffRouteTest, BadQueriesAreRefusedWithTheirCode) {
  TestServer server;
  auto client = server.Client();
  const int64_t a = UploadForDiff(*client, kControl);
  const int64_t cpu = UploadForDiff(*client, kCpuOnly);
  const std::string ida = std::to_string(a);
  auto missing = client->Get(("/api/v1/diff?a=" + ida).c_str());
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);
  auto unknown = client->Get(("/api/v1/diff?a=" + ida + "&b=999999").c_str());
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto zero_top = client->Get(("/api/v1/diff?a=" + ida + "&b=" + ida + "&top=0").c_str());
  ASSERT_TRUE(zero_top);
  EXPECT_EQ(zero_top->status, 400);
  auto no_gpu = client->Get(("/api/v1/diff?a=" + std::to_string(cpu) + "&b=" + ida).c_str());
  ASSERT_TRUE(no_gpu);
  EXPECT_EQ(no_gpu->status, 422);
  EXPECT_EQ(ErrorCode(no_gpu->body), "unprocessable");
}

TEST(DiffRouteTest, OpenApiDescribesIt) {
  TestServer server;
  auto res = server.Client()->Get("/api/v1/openapi.json");
  ASSERT_TRUE(res);
  simdjson::dom::parser parser;
  simdjson::dom::element entry;
  EXPECT_EQ(ParseJson(parser, res->body)["paths"]["/api/v1/diff"]["get"].get(entry), simdjson::SUCCESS);
}

}  // namespace
}  // namespace kraken::server
