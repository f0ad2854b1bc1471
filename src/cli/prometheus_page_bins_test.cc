// GET /api/v1/cluster from Prometheus when the busy figure changes over the day: the
// page's bins are Prometheus's avg_over_time/count_over_time, and its means weigh each
// bin by its raw sample count. One GPU with the label set and busy value of the real A100
// capture (../shared/data/dcgm): 0.99563 every 300 s for the first 12 hours, then the
// T4 capture's idle 0 every 600 s (a sparser scrape) for the last 12.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "base/text.h"
#include "cli/agent_process_testing.h"
#include "cli/prometheus_test_server.h"

namespace kraken {
namespace {

constexpr char kBinsA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr int64_t kBinsHourS = 3600;

// The capture's whole-GPU engine-activity line: "NAME{labels}" and its value text.
void BinsEngineLine(std::string* series, std::string* value) {
  // Held here: the views Split returns point into it (a temporary would die before the loop).
  const std::string capture = testing::ReadFileOrDie(testing::DataPath(kBinsA100));
  for (std::string_view line : Split(capture, '\n')) {
    if (!StartsWith(line, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{") || line.find("GPU_I_ID") != std::string_view::npos)
      continue;
    size_t close = line.find('}');
    *series = std::string(line.substr(0, close)) + ",namespace=\"ml\",pod=\"trainer-0\"}";
    *value = std::string(Trim(line.substr(close + 1)));
    return;
  }
}

TEST(PrometheusPageBinsTest, BinsAreMeansAndTheDayWeighsThemBySamples) {
  std::string series, busy;
  BinsEngineLine(&series, &busy);
  ASSERT_EQ(busy, "0.995630");
  int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  int64_t end_s = now / kBinsHourS * kBinsHourS - kBinsHourS;
  std::string text = "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n";
  int64_t busy_samples = 0, idle_samples = 0;
  for (int64_t t = end_s - 24 * kBinsHourS + 300; t <= end_s - 12 * kBinsHourS; t += 300, ++busy_samples)
    text += series + " " + busy + " " + std::to_string(t) + "\n";
  for (int64_t t = end_s - 12 * kBinsHourS + 600; t <= end_s; t += 600, ++idle_samples)
    text += series + " 0 " + std::to_string(t) + "\n";
  text += "# EOF\n";
  testing::PrometheusServer prometheus(text, testing::MakeTempDir("prometheus_page_bins"));
  ASSERT_TRUE(prometheus.ok()) << prometheus.error();
  std::string dir = testing::MakeTempDir("prometheus_page_bins_api");
  int port = testing::FreeLoopbackPort();
  testing::ChildProcess serve({KRAKEN_BINARY_PATH, "serve", "--host", "127.0.0.1", "--port", std::to_string(port),
                               "--db", dir + "/api.db", "--prometheus", prometheus.url()},
                              dir + "/serve.log");
  ASSERT_FALSE(serve.WaitForLog("listening on", std::chrono::seconds(20)).empty()) << serve.Log();
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  auto answer = client.Get("/api/v1/cluster?range=1d&bins=24&end=" + std::to_string(end_s));
  ASSERT_TRUE(answer) << serve.Log();
  ASSERT_EQ(answer->status, 200) << answer->body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(answer->body);

  ASSERT_EQ(doc["gpus"].get_array().size(), 1u) << answer->body;
  simdjson::dom::array bins = doc["heatmap"]["rows"].at(0)["values"].get_array();
  ASSERT_EQ(bins.size(), 24u);
  for (size_t b = 0; b < 24; ++b) EXPECT_NEAR(double(bins.at(b)), b < 12 ? 99.563 : 0.0, 1e-9) << "bin " << b;

  // 144 busy samples and 72 idle ones: the day's mean weighs each by its count, not the
  // 12 + 12 bins alike (which would say 49.78 %).
  EXPECT_EQ(busy_samples, 144);
  EXPECT_EQ(idle_samples, 72);
  double mean = 99.563 * 144.0 / (144.0 + 72.0);
  simdjson::dom::element gpu = doc["gpus"].at(0);
  EXPECT_NEAR(double(gpu["mean_gpu_util_pct"]), mean, 1e-6);
  EXPECT_NEAR(double(gpu["gpu_util_pct"]), 0.0, 1e-12);  // the newest sample: idle
  simdjson::dom::element pod = doc["pods"].at(0);
  EXPECT_EQ(std::string_view(pod["pod"]), "trainer-0");
  EXPECT_EQ(int64_t(pod["samples"]), 216);
  EXPECT_NEAR(double(pod["mean_gpu_util_pct"]), mean, 1e-6);
  EXPECT_EQ(int64_t(gpu["first_ns"]), (end_s - 24 * kBinsHourS) * 1'000'000'000);
  EXPECT_EQ(int64_t(gpu["last_ns"]), end_s * 1'000'000'000);
  // Idle for 12 of the 24 hours but busy 66 % of the day: not a pooling candidate.
  EXPECT_EQ(doc["pooling_candidates"].get_array().size(), 0u);
}

}  // namespace
}  // namespace kraken
