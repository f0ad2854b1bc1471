// /api/v1 over loopback against the real server, its views of measurements over time: a
// real nvidia-smi capture stored as a live profile (as `kraken record-nvml` stores one) for
// the series, cluster and live views, and the live view of an agent that does not answer.
#include <gtest/gtest.h>

#include <map>

#include "base/text.h"
#include "importers/builtin_importers.h"
#include "importers/registry.h"
#include "server/test_server.h"
#include "store/store.h"

namespace kraken::server {
namespace {

using testing::ParseJson;
using testing::TestServer;

constexpr char kLiveCapture[] = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";

// The capture's GPU-level series of its "load" phase, replayed into the store as a live
// profile pass by pass (as `kraken record-nvml` writes one).
int64_t StoreCaptureAsLive(const std::string& db_path) {
  auto imported = ImportFile(BuiltinImporters(), kraken::testing::DataPath(kLiveCapture));
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
