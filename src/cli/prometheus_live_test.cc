// `kraken serve --prometheus URL` without --agent: GET /api/v1/live streams the newest DCGM
// samples of a real Prometheus on loopback. Prometheus holds the last 30 minutes, up to
// now, built from the real dcgm-exporter captures in ../shared/data/dcgm (every line
// repeated every 15 s, pods under both label spellings). Every gauge line of the captures
// must come back as one sample, in canonical units, with its node, GPU and pod.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <cmath>
#include <map>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "base/text.h"
#include "cli/agent_process_testing.h"
#include "cli/prometheus_test_server.h"
#include "cli/serve_over_prometheus_testing.h"
#include "importers/common/exposition_parser.h"
#include "model/dcgm_metric_catalog.h"

namespace kraken {
namespace {

constexpr char kLiveA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kLiveT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";

int64_t LiveNowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string LiveLabel(const std::vector<prometheus::Label>& labels, const std::string& name) {
  for (const auto& l : labels)
    if (l.name == name) return l.value;
  return "";
}

// What a live sample is expected to say, keyed by "host/gpu/instance/metric".
struct ExpectedLive {
  double value = 0;
  std::string namespace_name, pod;
};

// The captures' gauge lines the attributions keep (the same filter as
// BuildOpenMetricsHistory), in canonical units.
std::map<std::string, ExpectedLive> ExpectedLiveSamples(const std::vector<testing::CaptureAttribution>& captures) {
  std::map<std::string, ExpectedLive> expected;
  for (const testing::CaptureAttribution& c : captures) {
    std::string text = testing::ReadFileOrDie(testing::DataPath(c.data_file));
    prometheus::ExpositionLine line;
    for (std::string_view raw : Split(text, '\n')) {
      prometheus::ParseExpositionLine(raw, &line);
      if (line.kind != prometheus::LineKind::kSample || line.labels.empty()) continue;
      if (c.hostname.empty() ? LiveLabel(line.labels, "pod").empty()
                             : LiveLabel(line.labels, "Hostname") != c.hostname)
        continue;
      if (c.mig_instances == LiveLabel(line.labels, "GPU_I_ID").empty()) continue;
      const prometheus::DcgmMetricEntry* entry = prometheus::FindDcgmMetric(line.metric_name);
      if (entry == nullptr || entry->metric == Metric::kOther || entry->type != prometheus::PromType::kGauge) continue;
      std::optional<double> value = ParseDouble(line.value_text);
      if (!value || prometheus::IsDcgmBlank(line.value_text, *value)) continue;
      std::string instance = LiveLabel(line.labels, "GPU_I_ID");
      std::string key = LiveLabel(line.labels, "Hostname") + "/" + LiveLabel(line.labels, "gpu") + "/" +
                        (instance.empty() ? "-1" : instance) + "/" + std::string(GetMetricInfo(entry->metric).name);
      ExpectedLive want{*value * entry->scale, c.pod.empty() ? LiveLabel(line.labels, "namespace") : c.namespace_name,
                        c.pod.empty() ? LiveLabel(line.labels, "pod") : c.pod};
      EXPECT_TRUE(expected.emplace(key, want).second) << "two capture lines for " << key;
    }
  }
  return expected;
}

// The first server-sent event of GET /api/v1/live (the client then hangs up).
std::string FirstLiveEvent(int port, std::string* received) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30, 0);
  client.Get("/api/v1/live", [&](const char* data, size_t size) {
    received->append(data, size);
    return received->find("\n\n") == std::string::npos;
  });
  constexpr std::string_view kHead = "event: samples\ndata: ";
  if (!StartsWith(*received, kHead) || received->find("\n\n") == std::string::npos) return "";
  return received->substr(kHead.size(), received->find("\n\n") - kHead.size());
}

class PrometheusLiveTest : public testing::ServeOverPrometheusTest<PrometheusLiveTest> {
 protected:
  static void SetUpTestSuite() {
    end_s_ = LiveNowS() / 15 * 15;
    captures_ = {
        {kLiveA100, "ub20-a100-k8s", false, "ml", "trainer-0", true},
        {kLiveA100, "ub20-a100-k8s", true, "ml", "notebook-0", false},
        {kLiveT4, "424773df46e0", false, "ml", "infer-t4", false},
        {kLiveT4, "", false, "", "", false},
    };
    int64_t series = 0;
    StartServing(testing::BuildOpenMetricsHistory(captures_, {end_s_, 1800, 15}, &series), "prometheus_live");
  }

  static inline std::vector<testing::CaptureAttribution> captures_;
  static inline int64_t end_s_ = 0;
};

TEST_F(PrometheusLiveTest, EveryGaugeOfTheCapturesIsOneSampleWithItsPod) {
  std::map<std::string, ExpectedLive> expected = ExpectedLiveSamples(captures_);
  ASSERT_GT(expected.size(), 20u);  // both captures' gauges: a whole A100, a MIG slice, T4s, an A10G
  std::string received;
  std::string data = FirstLiveEvent(port_, &received);
  ASSERT_FALSE(data.empty()) << received << serve_->Log();
  simdjson::dom::parser parser;
  simdjson::dom::element event = parser.parse(data);
  EXPECT_EQ(std::string_view(event["source"]), "prometheus");
  EXPECT_EQ(std::string_view(event["prometheus"]), prometheus_->url());
  EXPECT_TRUE(event["profile_id"].is_null());
  EXPECT_FALSE(bool(event["truncated"]));
  EXPECT_TRUE(event["error"].error() == simdjson::NO_SUCH_FIELD) << data;

  // The newest point is from the last 5 minutes of samples, ending at the history's end.
  int64_t newest_ns = int64_t(event["time_ns"]);
  EXPECT_GE(newest_ns, (end_s_ - 300) * 1'000'000'000);
  EXPECT_LE(newest_ns, (LiveNowS() + 1) * 1'000'000'000);
  std::map<std::string, ExpectedLive> seen;
  for (simdjson::dom::element s : event["samples"].get_array()) {
    std::string key = std::string(std::string_view(s["hostname"])) + "/" + std::to_string(int64_t(s["gpu_index"])) +
                      "/" + std::to_string(int64_t(s["gpu_instance_id"])) + "/" +
                      std::string(std::string_view(s["metric"]));
    EXPECT_LE(int64_t(s["time_ns"]), newest_ns);
    EXPECT_TRUE(seen.emplace(key, ExpectedLive{double(s["value"]), std::string(std::string_view(s["namespace"])),
                                               std::string(std::string_view(s["pod"]))})
                    .second)
        << "two samples for " << key;
  }
  EXPECT_EQ(seen.size(), expected.size()) << data;
  for (const auto& [key, want] : expected) {
    auto got = seen.find(key);
    ASSERT_NE(got, seen.end()) << key << " missing\n" << data;
    EXPECT_NEAR(got->second.value, want.value, 1e-9 * std::max(1.0, std::fabs(want.value))) << key;
    EXPECT_EQ(got->second.namespace_name, want.namespace_name) << key;
    EXPECT_EQ(got->second.pod, want.pod) << key;
  }
  // Spot checks against the A100 capture's lines: the exported_pod spelling names the
  // trainer (not the exporter's own pod), the MIG slice is the notebook's.
  EXPECT_NEAR(seen["ub20-a100-k8s/0/-1/gr_engine_active_ratio"].value, 0.99563, 1e-12);
  EXPECT_EQ(seen["ub20-a100-k8s/0/-1/power_w"].pod, "trainer-0");
  EXPECT_NEAR(seen["ub20-a100-k8s/0/-1/fb_used_bytes"].value, 4845.0 * 1024 * 1024, 1e-3);
  EXPECT_EQ(seen["ub20-a100-k8s/0/13/gr_engine_active_ratio"].pod, "notebook-0");
  EXPECT_EQ(seen["ip-11111/0/-1/dram_active_ratio"].pod, "ray-1111111");
}

TEST_F(PrometheusLiveTest, PrometheusDownIsAnErrorEventAndTheStreamGoesOn) {
  std::string dir = testing::MakeTempDir("prometheus_live_down");
  int port = testing::FreeLoopbackPort();
  std::string nobody = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  testing::ChildProcess serve({KRAKEN_BINARY_PATH, "serve", "--host", "127.0.0.1", "--port", std::to_string(port),
                               "--db", dir + "/api.db", "--prometheus", nobody},
                              dir + "/serve.log");
  ASSERT_FALSE(serve.WaitForLog("listening on", std::chrono::seconds(20)).empty()) << serve.Log();
  for (int i = 0; i < 2; ++i) {
    std::string received;
    std::string data = FirstLiveEvent(port, &received);
    ASSERT_FALSE(data.empty()) << received << serve.Log();
    simdjson::dom::parser parser;
    simdjson::dom::element event = parser.parse(data);
    EXPECT_EQ(std::string_view(event["source"]), "prometheus");
    EXPECT_NE(std::string_view(event["error"]).find(nobody), std::string_view::npos) << data;
    EXPECT_EQ(event["samples"].get_array().size(), 0u);
  }
  EXPECT_TRUE(serve.running()) << serve.Log();
}

}  // namespace
}  // namespace kraken
