// /api/v1 over loopback against the real server: a real Kineto trace uploaded, listed,
// summarised and analysed (the same document `kraken analyze --json` prints for the file),
// a real nvidia-smi capture and a real node sequence uploaded for the list, report and
// temporal views, and the OpenAPI document and dashboard assets. The series, cluster and
// live views are in series_live_api_test.cc.
#include <gtest/gtest.h>

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "analysis/disagg/disagg_analysis.h"
#include "app/analyze_request.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "report/disagg_output.h"
#include "server/test_server.h"
#include "server/test_upload.h"

namespace kraken::server {
namespace {

using testing::ParseJson;
using testing::kTrace;
using testing::kTraceName;

using testing::ErrorCode;
using testing::ServerWithUpload;
using testing::TestServer;

// HTA's ns-resolution ResNet training trace (V100): 4,350 kernels, 1,600 memcpy, 145 memset.
constexpr char kCapture[] = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";

// The trace uploaded to a fresh server; the upload's answer describes the file.
struct ServerWithTrace : ServerWithUpload {
  ServerWithTrace() : ServerWithUpload(kTrace, kTraceName) {
    if (upload.body.empty()) return;  // no answer: UploadDataFile has failed the test
    simdjson::dom::parser parser;
    auto root = ParseJson(parser, upload.body);
    EXPECT_EQ(std::string_view(root["format"]), "kineto");
    EXPECT_EQ(std::string_view(root["source"]), kTraceName);
    EXPECT_EQ(int64_t(root["kernels"]), 4350);
  }
};

// The file imported the way `kraken analyze FILE` imports it, named as the upload names it.
Profile ImportTrace() {
  auto imported = ImportFile(BuiltinImporters(), kraken::testing::DataPath(kTrace));
  EXPECT_TRUE(imported.ok() && imported->size() == 1);
  if (!imported.ok() || imported->empty()) return Profile();
  Profile p = std::move(imported->front());
  p.metadata.source = kTraceName;
  return p;
}

// What `kraken analyze --json` prints for the trace with these settings ("" when the
// settings are refused, which fails the test).
std::string AnalyzeDocumentOfTheTrace(const AnalyzeSettings& settings) {
  auto options = MakeCharacterizeOptions(settings);
  EXPECT_TRUE(options.ok()) << options.status().message();
  if (!options.ok()) return "";
  std::vector<Profile> profiles;
  profiles.push_back(ImportTrace());
  return RenderAnalysis(profiles, settings, *options, /*json=*/true);
}

TEST(ProfilesApiTest, UploadedTraceAnalysisIsTheAnalyzeDocument) {
  ServerWithTrace loopback;
  ASSERT_GT(loopback.upload.id, 0);
  auto res = loopback.client->Get(loopback.Path("/analysis"));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body.substr(0, 300);

  EXPECT_EQ(res->body, AnalyzeDocumentOfTheTrace(AnalyzeSettings{}));

  simdjson::dom::parser parser;
  auto doc = ParseJson(parser, res->body);
  // Figures of the file itself (V100, 5 ProfilerSteps, 4,350 kernels).
  auto rank = doc["ranks"].at(0);
  EXPECT_EQ(int64_t(rank["kernels"]["count"]), 4350);
  EXPECT_EQ(std::string_view(rank["workload"]["type"]), "training");
  EXPECT_EQ(std::string_view(rank["device"]["catalog_id"]), "v100-sxm2");
  EXPECT_EQ(simdjson::dom::array(rank["steps"]).size(), 5u);
  EXPECT_DOUBLE_EQ(double(rank["trace_timeline"]["busy_us"]), 472454.441);
  EXPECT_DOUBLE_EQ(double(rank["trace_timeline"]["idle_pct"]), 1.577974492);
}

TEST(ProfilesApiTest, AnalysisParametersMirrorTheCliFlags) {
  ServerWithTrace loopback;
  auto& client = loopback.client;
  std::string base = loopback.Path("/analysis");
  auto steps = client->Get((base + "?window=steps&top=3&thresholds=10,50").c_str());
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->status, 200);
  AnalyzeSettings settings;
  settings.window = "steps";
  settings.top = 3;
  settings.thresholds = "10,50";
  EXPECT_EQ(steps->body, AnalyzeDocumentOfTheTrace(settings));
  for (const char* bad : {"?window=week", "?top=-1", "?thresholds=50", "?linked_only=maybe", "?device=abacus"}) {
    auto res = client->Get((base + bad).c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << bad;
    EXPECT_EQ(ErrorCode(res->body), "bad_request") << bad;
  }
}

TEST(ProfilesApiTest, ListAndSummaryOfTheUploadedTrace) {
  ServerWithTrace loopback;
  auto& client = loopback.client;
  const int64_t id = loopback.upload.id;
  auto list = client->Get("/api/v1/profiles");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200);
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, list->body);
  EXPECT_EQ(int64_t(root["count"]), 1);
  auto entry = root["profiles"].at(0);
  EXPECT_EQ(int64_t(entry["id"]), id);
  EXPECT_EQ(std::string_view(entry["name"]), "rank-0.Apr_03_18_51_38.1102.pt.trace");
  EXPECT_EQ(std::string_view(entry["kind"]), "import");
  EXPECT_EQ(std::string_view(entry["workload_type"]), "training");
  EXPECT_EQ(std::string_view(entry["bound"]), "compute");
  EXPECT_DOUBLE_EQ(double(entry["gpu_util"]), 0.9842202551);  // timeline busy / total
  EXPECT_DOUBLE_EQ(double(entry["disagg_score"]), 0.6498558867);

  auto one = client->Get(loopback.Path());
  ASSERT_TRUE(one);
  ASSERT_EQ(one->status, 200);
  simdjson::dom::parser parser2;
  auto summary = ParseJson(parser2, one->body);
  EXPECT_EQ(int64_t(summary["counts"]["kernels"]), 4350);
  EXPECT_EQ(int64_t(summary["counts"]["memory_ops"]), 1745);  // 1,600 memcpy + 145 memset
  EXPECT_EQ(std::string_view(summary["summary"]["format"]), "kineto");
  EXPECT_EQ(std::string_view(summary["devices"].at(0)), "Tesla V100-SXM2-32GB");
}

// The capture has an idle and a load phase of the same GPU: the list's utilization is the
// mean over both (the first phase alone is idle and would read 0).
TEST(ProfilesApiTest, ListedUtilizationOfACaptureCoversEveryPhase) {
  ServerWithUpload loopback(kCapture, "h100.txt");
  ASSERT_GT(loopback.upload.id, 0);
  auto list = loopback.client->Get("/api/v1/profiles");
  ASSERT_TRUE(list);
  simdjson::dom::parser parser;
  auto entry = ParseJson(parser, list->body)["profiles"].at(0);
  EXPECT_EQ(std::string_view(entry["format"]), "nvidia-smi");
  EXPECT_DOUBLE_EQ(double(entry["gpu_util"]), 0.5);  // idle phase 0 %, load phase 100 %
}

// The workload page's document: the capture's device memory (the "—" the page once showed
// where the report said 75.7 % never used), its one clock, the list's device summary, and
// the same bytes again from the server's cache.
TEST(ProfilesApiTest, ReportOfAStoredCaptureIsTheReportDocument) {
  ServerWithUpload loopback(kCapture, "h100.txt");
  ASSERT_GT(loopback.upload.id, 0);
  auto& client = loopback.client;
  auto list = client->Get("/api/v1/profiles");
  ASSERT_TRUE(list);
  simdjson::dom::parser parser;
  auto entry = ParseJson(parser, list->body)["profiles"].at(0);
  EXPECT_EQ(std::string_view(entry["device_summary"]), "1x NVIDIA H100 80GB HBM3");
  std::string path = "/api/v1/profiles/" + std::to_string(int64_t(entry["id"])) + "/report";
  auto report = client->Get(path);
  ASSERT_TRUE(report);
  ASSERT_EQ(report->status, 200) << report->body;
  simdjson::dom::parser parser2;
  auto doc = ParseJson(parser2, report->body);
  EXPECT_EQ(std::string_view(doc["kind"]), "kraken-report");
  int64_t device_bytes = int64_t(doc["device_memory_bytes"].at(0));
  EXPECT_GT(device_bytes, 80'000'000'000);
  double fb_max = 0;
  for (auto s : simdjson::dom::array(doc["analyze"]["ranks"].at(0)["series"]))
    if (std::string_view(s["metric"]) == "fb_used_bytes") fb_max = std::max(fb_max, double(s["max"]));
  // What the summary shows as "device memory never used".
  EXPECT_NEAR(100 * (1 - fb_max / static_cast<double>(device_bytes)), 75.7, 0.05);
  EXPECT_DOUBLE_EQ(double(doc["series"]["start_unix_s"]), 1'784'016'758.0);
  auto again = client->Get(path);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, report->body);
  auto missing = client->Get("/api/v1/profiles/999/report");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST(ProfilesApiTest, DisaggIsTheDisaggDocument) {
  ServerWithTrace loopback;
  auto res = loopback.client->Get(loopback.Path("/disagg"));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body.substr(0, 300);
  Profile p = ImportTrace();
  WorkloadReport report = CharacterizeWorkload(p);
  std::vector<disagg::DisaggResult> results;
  for (const WorkloadDemand& d : DeriveDemands(p, report))
    results.push_back(disagg::AnalyzeDisaggregation(p, report, d));
  EXPECT_EQ(res->body, RenderDisaggJson(results, DisaggOutputOptions{}));
}

TEST(ProfilesApiTest, TemporalOfAnUploadedSequenceIsTheTemporalDocument) {
  ServerWithUpload loopback("helios/philly_node_sequence.csv.gz", "philly_node_sequence.csv.gz");
  ASSERT_GT(loopback.upload.id, 0);
  auto& client = loopback.client;
  const int64_t id = loopback.upload.id;
  simdjson::dom::parser parser;
  auto res = client->Post("/api/v1/temporal",
                          "{\"profile_id\":" + std::to_string(id) + R"(,"series":["0"],"horizon":"1h"})",
                          "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  auto series = ParseJson(parser, res->body)["files"].at(0)["series"].at(0);
  EXPECT_EQ(std::string_view(series["name"]), "philly_node_sequence/active");
  EXPECT_EQ(std::string_view(series["periodicity"]["verdict"]), "no significant period");
  EXPECT_NEAR(double(series["forecast"]["horizons"].at(0)["mase"]), 0.931, 0.005);  // as `kraken temporal` prints
  EXPECT_EQ(series["forecast"]["horizons"].at(1).error(), simdjson::INDEX_OUT_OF_BOUNDS);  // only 1h asked

  auto none = client->Post("/api/v1/temporal", "{\"profile_id\":" + std::to_string(id) + R"(,"series":"gpu"})",
                           "application/json");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 400);
}

TEST(ProfilesApiTest, OpenApiDescribesEveryEndpoint) {
  TestServer server;
  auto res = server.Client()->Get("/api/v1/openapi.json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  simdjson::dom::parser parser;
  auto doc = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(doc["openapi"]), "3.0.3");
  for (const char* path : {"/health", "/profiles", "/profile/{workload_id}", "/profile", "/register", "/colocation",
                           "/api/v1/profiles", "/api/v1/profiles/{id}", "/api/v1/profiles/{id}/analysis",
                           "/api/v1/profiles/{id}/disagg", "/api/v1/profiles/{id}/report", "/api/v1/profiles/{id}/series", "/api/v1/colocate",
                           "/api/v1/pack", "/api/v1/temporal", "/api/v1/cluster", "/api/v1/live",
                           "/api/v1/openapi.json", "/", "/assets/{path}"}) {
    simdjson::dom::element entry;
    EXPECT_EQ(doc["paths"][path].get(entry), simdjson::SUCCESS) << path;
  }
}

TEST(ProfilesApiTest, DashboardIsServedFromTheBinary) {
  TestServer server;
  auto client = server.Client();
  auto index = client->Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(index->body.find("/assets/app.js"), std::string::npos);
  auto script = client->Get("/assets/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_GT(script->body.size(), 0u);
  // A browser accepts br: the bundle comes gzipped once by kraken (the library's own Brotli
  // at its highest quality took 2.2 s per page load), never compressed twice.
  auto browser = client->Get("/assets/app.js", httplib::Headers{{"Accept-Encoding", "gzip, deflate, br"}});
  ASSERT_TRUE(browser);
  EXPECT_EQ(browser->status, 200);
  EXPECT_EQ(browser->get_header_value_count("Content-Encoding"), 1u);
  EXPECT_EQ(browser->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(browser->get_header_value("Content-Type"), "application/javascript; charset=utf-8");
  EXPECT_EQ(browser->body, script->body);  // the client inflated it
  auto missing = client->Get("/assets/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(ErrorCode(missing->body), "not_found");
}

}  // namespace
}  // namespace kraken::server
