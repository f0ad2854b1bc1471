// /api/v1 over loopback against the real server: a real Kineto trace uploaded, listed,
// summarised and analysed (the same document `kraken analyze --json` prints for the file),
// a real nvidia-smi capture stored as a live profile for the series, cluster and live
// views, and the OpenAPI document and dashboard assets.
#include <gtest/gtest.h>

#include <map>

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "analysis/disagg/disagg_analysis.h"
#include "app/analyze_request.h"
#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "report/disagg_output.h"
#include "server/test_server.h"
#include "store/store.h"

namespace kraken::server {
namespace {

using testing::ParseJson;
using testing::kTrace;
using testing::kTraceName;

using testing::ErrorCode;
using testing::TestServer;

// HTA's ns-resolution ResNet training trace (V100): 4,350 kernels, 1,600 memcpy, 145 memset.
constexpr char kCapture[] = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";

int64_t UploadTrace(httplib::Client& client) {
  std::string body = kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kTrace));
  // Built by append: GCC 12 flags `std::string(...) + kTraceName` with a false -Warray-bounds.
  std::string path = "/api/v1/profiles?name=";
  path += kTraceName;
  auto res = client.Post(path.c_str(), body, "application/gzip");
  EXPECT_TRUE(res);
  if (!res) return 0;
  EXPECT_EQ(res->status, 201) << res->body;
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, res->body);
  EXPECT_EQ(std::string_view(root["format"]), "kineto");
  EXPECT_EQ(std::string_view(root["source"]), kTraceName);
  EXPECT_EQ(int64_t(root["kernels"]), 4350);
  int64_t id = 0;
  EXPECT_EQ(root["id"].get(id), simdjson::SUCCESS);
  return id;
}

// The file imported the way `kraken analyze FILE` imports it, named as the upload names it.
Profile ImportTrace() {
  auto imported = ImportFile(BuiltinImporters(), kraken::testing::DataPath(kTrace));
  EXPECT_TRUE(imported.ok() && imported->size() == 1);
  if (!imported.ok() || imported->empty()) return Profile();
  Profile p = std::move(imported->front());
  p.metadata.source = kTraceName;
  return p;
}

TEST(ProfilesApiTest, UploadedTraceAnalysisIsTheAnalyzeDocument) {
  TestServer server;
  auto client = server.Client();
  int64_t id = UploadTrace(*client);
  ASSERT_GT(id, 0);
  auto res = client->Get(("/api/v1/profiles/" + std::to_string(id) + "/analysis").c_str());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body.substr(0, 300);

  AnalyzeSettings settings;
  auto options = MakeCharacterizeOptions(settings);
  ASSERT_TRUE(options.ok());
  std::vector<Profile> profiles;
  profiles.push_back(ImportTrace());
  EXPECT_EQ(res->body, RenderAnalysis(profiles, settings, *options, /*json=*/true));

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
  TestServer server;
  auto client = server.Client();
  int64_t id = UploadTrace(*client);
  std::string base = "/api/v1/profiles/" + std::to_string(id) + "/analysis";
  auto steps = client->Get((base + "?window=steps&top=3&thresholds=10,50").c_str());
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->status, 200);
  AnalyzeSettings settings;
  settings.window = "steps";
  settings.top = 3;
  settings.thresholds = "10,50";
  auto options = MakeCharacterizeOptions(settings);
  ASSERT_TRUE(options.ok());
  std::vector<Profile> profiles;
  profiles.push_back(ImportTrace());
  EXPECT_EQ(steps->body, RenderAnalysis(profiles, settings, *options, true));
  for (const char* bad : {"?window=week", "?top=-1", "?thresholds=50", "?linked_only=maybe", "?device=abacus"}) {
    auto res = client->Get((base + bad).c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400) << bad;
    EXPECT_EQ(ErrorCode(res->body), "bad_request") << bad;
  }
}

TEST(ProfilesApiTest, ListAndSummaryOfTheUploadedTrace) {
  TestServer server;
  auto client = server.Client();
  int64_t id = UploadTrace(*client);
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

  auto one = client->Get(("/api/v1/profiles/" + std::to_string(id)).c_str());
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
  TestServer server;
  auto client = server.Client();
  std::string body = kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kCapture));
  auto res = client->Post("/api/v1/profiles?name=h100.txt", body, "text/plain");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 201) << res->body;
  auto list = client->Get("/api/v1/profiles");
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
  TestServer server;
  auto client = server.Client();
  std::string body = kraken::testing::ReadFileOrDie(kraken::testing::DataPath(kCapture));
  auto res = client->Post("/api/v1/profiles?name=h100.txt", body, "text/plain");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 201) << res->body;
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
  TestServer server;
  auto client = server.Client();
  int64_t id = UploadTrace(*client);
  auto res = client->Get(("/api/v1/profiles/" + std::to_string(id) + "/disagg").c_str());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body.substr(0, 300);
  Profile p = ImportTrace();
  WorkloadReport report = CharacterizeWorkload(p);
  std::vector<disagg::DisaggResult> results;
  for (const WorkloadDemand& d : DeriveDemands(p, report))
    results.push_back(disagg::AnalyzeDisaggregation(p, report, d));
  EXPECT_EQ(res->body, RenderDisaggJson(results, DisaggOutputOptions{}));
}

// The capture's GPU-level series of its "load" phase, replayed into the store as a live
// profile pass by pass (as `kraken record-nvml` writes one).
int64_t StoreCaptureAsLive(const std::string& db_path) {
  auto imported = ImportFile(BuiltinImporters(), kraken::testing::DataPath(kCapture));
  EXPECT_TRUE(imported.ok());
  if (!imported.ok()) return 0;
  const Profile& p = imported->front();
  std::map<TimeNs, SampleBatch> passes;
  for (const Series& s : p.series) {
    auto phase = s.entity.labels.find("phase");
    if (s.metric == Metric::kOther || s.entity.pid >= 0 || phase == s.entity.labels.end() || phase->second != "load")
      continue;
    for (const Sample& sample : s.samples) {
      SampleBatch& batch = passes[sample.time_ns];
      batch.time_ns = sample.time_ns;
      batch.entities.push_back(s.entity);
      batch.values.push_back({s.metric, static_cast<int32_t>(batch.entities.size() - 1), sample.value, s.source_name});
    }
  }
  auto store = ProfileStore::Open(db_path);
  EXPECT_TRUE(store.ok());
  ProfileMetadata md = p.metadata;
  auto id = (*store)->BeginProfile(md, p.devices);
  EXPECT_TRUE(id.ok());
  for (const auto& [time, batch] : passes) EXPECT_TRUE((*store)->AppendBatch(*id, batch).ok());
  EXPECT_TRUE((*store)->Commit(*id).ok());
  return *id;
}

TEST(ProfilesApiTest, SeriesClusterAndLiveOfAStoredLiveCapture) {
  TestServer server;
  int64_t id = StoreCaptureAsLive(server.options().db_path);
  ASSERT_GT(id, 0);
  auto client = server.Client();
  auto series = client->Get(("/api/v1/profiles/" + std::to_string(id) + "/series?metric=power_w&max_points=5").c_str());
  ASSERT_TRUE(series);
  ASSERT_EQ(series->status, 200) << series->body;
  simdjson::dom::parser parser;
  auto root = ParseJson(parser, series->body);
  EXPECT_EQ(std::string_view(root["unit"]), "W");
  // dmon's "pwr" (5 passes, 1 s apart), -q's average power draw and --query-gpu's power.draw,
  // in time order on the capture's one clock: -q (08:12:53), power.draw (08:12:53.353),
  // then dmon from the load phase's last timestamp (08:12:53.500) on.
  simdjson::dom::array all = root["series"];
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(std::string_view(all.at(0)["source_name"]), "GPU Power Readings/Average Power Draw");
  EXPECT_EQ(std::string_view(all.at(2)["source_name"]), "pwr");
  std::vector<double> means;
  for (auto point : simdjson::dom::array(all.at(2)["points"])) means.push_back(double(point["mean"]));
  EXPECT_EQ(means, (std::vector<double>{631, 634, 633, 634, 636}));
  EXPECT_EQ(int64_t(all.at(2)["points"].at(0)["t_ns"]), 1'784'016'773'500'000'000);
  EXPECT_EQ(double(all.at(1)["points"].at(0)["mean"]), 631.95);

  auto cluster = client->Get("/api/v1/cluster");
  ASSERT_TRUE(cluster);
  ASSERT_EQ(cluster->status, 200);
  simdjson::dom::parser parser2;
  auto c = ParseJson(parser2, cluster->body);
  simdjson::dom::array gpus = c["gpus"];
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(std::string_view(gpus.at(0)["gpu_name"]), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(double(gpus.at(0)["gpu_util_pct"]), 100);
  EXPECT_EQ(double(gpus.at(0)["fb_used_bytes"]), 20780679168.0);
  EXPECT_EQ(simdjson::dom::array(c["pooling_candidates"]).size(), 0u);  // 100 % busy under load

  // The first server-sent event, then the client hangs up.
  std::string received;
  auto live = client->Get("/api/v1/live", [&](const char* data, size_t size) {
    received.append(data, size);
    return received.find("\n\n") == std::string::npos;
  });
  ASSERT_TRUE(StartsWith(received, "event: samples\ndata: ")) << received;
  std::string data = received.substr(21, received.find("\n\n") - 21);
  simdjson::dom::parser parser3;
  auto event = ParseJson(parser3, data);
  EXPECT_EQ(int64_t(event["profile_id"]), id);
  EXPECT_EQ(std::string_view(event["source"]), "store");
  // dmon's last "pwr" pass, 4 s after the load phase's last timestamp; the newest sample.
  EXPECT_EQ(int64_t(event["time_ns"]), 1'784'016'777'500'000'000);
  bool saw_dmon_power = false;
  for (auto sample : simdjson::dom::array(event["samples"])) {
    if (int64_t(sample["time_ns"]) != 1'784'016'777'500'000'000 || std::string_view(sample["metric"]) != "power_w")
      continue;
    EXPECT_EQ(double(sample["value"]), 636);
    saw_dmon_power = true;
  }
  EXPECT_TRUE(saw_dmon_power) << data;
}

// Helios' Philly node sequence (105,644 one-minute samples of active and total servers).
TEST(ProfilesApiTest, TemporalOfAnUploadedSequenceIsTheTemporalDocument) {
  TestServer server;
  auto client = server.Client();
  std::string path = kraken::testing::DataPath("helios/philly_node_sequence.csv.gz");
  auto upload = client->Post("/api/v1/profiles?name=philly_node_sequence.csv.gz",
                             kraken::testing::ReadFileOrDie(path), "application/gzip");
  ASSERT_TRUE(upload);
  ASSERT_EQ(upload->status, 201) << upload->body;
  simdjson::dom::parser parser;
  int64_t id = int64_t(ParseJson(parser, upload->body)["id"]);
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

TEST(ProfilesApiTest, SeriesOfAnUnknownProfileOrMetric) {
  TestServer server;
  auto client = server.Client();
  auto unknown = client->Get("/api/v1/profiles/77/series");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  auto metric = client->Get("/api/v1/profiles/77/series?metric=bogus");
  ASSERT_TRUE(metric);
  EXPECT_EQ(metric->status, 400);
  auto points = client->Get("/api/v1/profiles/77/series?max_points=0");
  ASSERT_TRUE(points);
  EXPECT_EQ(points->status, 400);
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

namespace kraken::server {
namespace {

// `serve --agent URL` whose agent is gone: each event says so in one line, with no samples,
// and the stream goes on (the agent may come back).
TEST(ProfilesApiTest, LiveFromAnAgentThatDoesNotAnswerSaysSo) {
  // A port that was free a moment ago: bound by a server that is then stopped.
  int dead_port = 0;
  {
    TestServer gone;
    dead_port = gone.port();
  }
  ServeOptions options;
  options.agent_host = "127.0.0.1";
  options.agent_port = dead_port;
  TestServer server(options);
  std::string received;
  int events = 0;
  auto live = server.Client()->Get("/api/v1/live", [&](const char* data, size_t size) {
    received.append(data, size);
    events = 0;
    for (size_t at = received.find("\n\n"); at != std::string::npos; at = received.find("\n\n", at + 2)) ++events;
    return events < 2;
  });
  ASSERT_TRUE(StartsWith(received, "event: samples\ndata: ")) << received;
  std::string data = received.substr(21, received.find("\n\n") - 21);
  simdjson::dom::parser parser;
  auto event = ParseJson(parser, data);
  EXPECT_EQ(std::string_view(event["source"]), "agent");
  EXPECT_TRUE(event["profile_id"].is_null());
  EXPECT_EQ(simdjson::dom::array(event["samples"]).size(), 0u);
  std::string_view error = event["error"];
  EXPECT_EQ(error.rfind("agent http://127.0.0.1:" + std::to_string(dead_port) + " did not answer", 0), 0u) << error;
  EXPECT_EQ(events, 2);
}

}  // namespace
}  // namespace kraken::server
