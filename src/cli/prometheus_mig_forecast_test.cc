// `kraken annotate --mig-forecast 1h` against a real Prometheus on loopback: two A100
// nodes whose 1g.5gb serving pods come and go with a daily pattern derived from real data
// (analysis/mig/genai_daily_demand_testing.h: the GenAI serving pods' summed duty cycle as
// 1 to 7 instances), each pod's series the real A100 capture's MIG-instance lines
// (../shared/data/dcgm). The week is shifted so that the demand on a100-soon rises above
// two instances 30 minutes after the test runs, and on a100-later three hours after.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "analysis/mig/genai_daily_demand_testing.h"
#include "base/text.h"
#include "base/text_replace.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_test_server.h"
#include "k8s/client/fake_api_server.h"

namespace kraken {
namespace {

constexpr char kForecastA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";

// The capture's MIG-instance series, once: "# TYPE" lines and "name{labels} value" lines.
std::vector<std::string> MigInstanceLines() {
  int64_t series = 0;
  std::string one = testing::BuildOpenMetricsHistory({{kForecastA100, "ub20-a100-k8s", true, "genai", "POD", false}},
                                                     {0, 0, 300}, &series);
  std::vector<std::string> lines;
  for (std::string_view line : Split(one, '\n')) {
    if (line.empty() || line == "# EOF") continue;
    if (line.rfind("# ", 0) == 0) {
      lines.emplace_back(line);
    } else {
      lines.emplace_back(line.substr(0, line.rfind(' ')));  // drop the timestamp 0
    }
  }
  return lines;
}

// Pod k of `node` holds MIG instance k + 1 at the steps where the day's demand exceeds k;
// `anchor_s` is where the pattern's day starts. Samples a second before each step (see
// prometheus_budget_test.cc: Prometheus' lookback then ends a pod where it stopped).
std::string ForecastNodeHistory(const std::vector<std::string>& lines, const std::string& node,
                                const std::vector<int>& day, int64_t anchor_s, int64_t end_s) {
  std::string out;
  const int64_t step = testing::kGenAiDemandStepS;
  for (const std::string& line : lines) {
    if (line.rfind("# ", 0) == 0) {
      out += line + "\n";
      continue;
    }
    for (int k = 0; k < 7; ++k) {
      std::string key = ReplaceAll(line, "Hostname=\"ub20-a100-k8s\"", "Hostname=\"" + node + "\"");
      key = ReplaceAll(key, "GPU_I_ID=\"13\"", "GPU_I_ID=\"" + std::to_string(k + 1) + "\"");
      key = ReplaceAll(key, "pod=\"POD\"", "pod=\"" + node + "-serve-" + std::to_string(k) + "\"");
      key = ReplaceAll(key, "UUID=\"GPU-", "UUID=\"GPU-" + node + "-");
      for (int64_t t = end_s - 7 * 86400; t <= end_s; t += step) {
        int64_t phase = ((t - anchor_s) % 86400 + 86400) % 86400;
        if (day[static_cast<size_t>(phase / step)] > k) out += key + " " + std::to_string(t - 1) + "\n";
      }
    }
  }
  return out;
}

TEST(MigForecastPrometheusTest, TheNodeWhoseRiseIsWithinTheLookaheadChangesAhead) {
  std::vector<int> day = testing::GenAiDailyInstances();
  size_t rise = 0;
  while (rise < day.size() && day[rise] <= 2) ++rise;
  ASSERT_EQ(rise * testing::kGenAiDemandStepS, 2700u);  // 00:45 of the pattern's day
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t end_s = now / 300 * 300 - 3600;  // an hour back, as the other Prometheus tests
  std::vector<std::string> lines = MigInstanceLines();
  ASSERT_FALSE(lines.empty());
  std::string history = ForecastNodeHistory(lines, "a100-soon", day, now + 1800 - 2700, end_s) +
                        ForecastNodeHistory(lines, "a100-later", day, now + 3 * 3600 - 2700, end_s) + "# EOF\n";
  std::string dir = testing::MakeTempDir("mig_forecast_prometheus");
  testing::PrometheusServer prometheus(history, dir);
  ASSERT_TRUE(prometheus.ok()) << prometheus.error();

  k8s::testing::FakeApiServer api;
  for (const char* node : {"/api/v1/nodes/a100-soon", "/api/v1/nodes/a100-later"}) {
    k8s::testing::FakeObject object;
    object.labels["nvidia.com/mig.config"] = "1g.5gb-x2";
    api.Add(node, object);
  }
  std::ofstream(dir + "/token") << "sa-token\n";
  RunResult r = RunKraken("annotate --prometheus " + prometheus.url() +
                          " --namespace genai --gpu-model a100-40gb-sxm --kube-api http://127.0.0.1:" +
                          std::to_string(api.Config().port) + " --token-file " + dir + "/token --no-node-labels" +
                          " --apply-mig --mig-forecast 1h");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string soon = api.Annotation("/api/v1/nodes/a100-soon", "kraken.io/mig-recommendation");
  const std::string later = api.Annotation("/api/v1/nodes/a100-later", "kraken.io/mig-recommendation");
  // a100-soon: the forecast sees the rise within the hour and the day's peak of 7.
  EXPECT_EQ(soon.rfind("1g.5gb-x7 (change: the forecast (", 0), 0u) << soon;
  EXPECT_NE(soon.find(") has 1g.5gb demand at 3 instances at "), std::string::npos) << soon;
  EXPECT_NE(soon.find("above the 2 1g.5gb-x2 serves; 1g.5gb-x7 serves the forecast peak of the next 1440 min"),
            std::string::npos)
      << soon;
  // a100-later: its rise is three hours away, so nothing is proposed ahead of it yet, and
  // its pods' trough demand (one instance) does not cut the layout the forecast peak needs.
  EXPECT_EQ(later,
            "1g.5gb-x2 (keep: the forecast peak of the next 1440 min (1g.5gb: 2 instances by seasonal-naive) needs "
            "the current layout 1g.5gb-x2; measured demand alone asks for 1g.5gb-x1)");
  EXPECT_NE(r.out.find("; MIG: 1 change, 1 keep, 1 labelled; "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kraken
