// `kraken cost chargeback --forecast` and `--by label=team` against a real Prometheus on
// loopback. Its history: the week of the real dcgm-exporter captures the chargeback test
// uses (../shared/data/dcgm, values unchanged at every 5-minute sample), the kube-state-
// metrics series kube_pod_labels beside it, and a varying allocation derived from a real
// cluster trace: the GPUs a Helios "Earth" virtual cluster (vchbv) ran, minute by minute
// in May 2020 (../shared/data/helios), replayed as that many one-GPU pods of namespace
// "earth", one sample per 5 minutes, shifted to end at the test's last midnight.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "base/testing/test_data.h"
#include "base/text_replace.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_test_server.h"
#include "importers/registry.h"
#include "server/test_server.h"

namespace kraken {
namespace {

constexpr char kBudgetA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kBudgetT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";
constexpr char kBudgetHeliosVc[] = "helios/earth_vc_sequences/vchbv_cluster_sequence_vc.csv.gz";
constexpr int64_t kBudgetStepS = 300;
constexpr int64_t kBudgetSteps = 7 * 288 + 1;  // a week, both ends included
// The trace's third week (from 2020-05-15 00:00), whose allocation has the clearest daily rhythm.
constexpr size_t kBudgetTraceOffsetMinutes = 14 * 1440;
// GR_ENGINE_ACTIVE of the A100 capture's whole GPU: the earth pods' busy value.
constexpr char kBudgetBusy[] = "0.995630";
// A week of one GPU at 300 s steps, in hours.
constexpr double kBudgetWeekGpuHours = kBudgetSteps * kBudgetStepS / 3600.0;

// running_gpu_num of the virtual cluster every 5 minutes from the offset, one per step.
std::vector<int> BudgetHeliosRunningGpus() {
  auto profiles = ImportFile(BuiltinImporters(), testing::DataPath(kBudgetHeliosVc));
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  std::vector<int> running;
  if (!profiles.ok()) return running;
  for (const Profile& p : *profiles)
    for (const Series& s : p.series)
      if (s.source_name == "running_gpu_num")
        for (int64_t j = 0; j < kBudgetSteps; ++j) {
          size_t minute = kBudgetTraceOffsetMinutes + static_cast<size_t>(j) * 5;
          if (minute < s.samples.size()) running.push_back(static_cast<int>(s.samples[minute].value));
        }
  EXPECT_EQ(running.size(), static_cast<size_t>(kBudgetSteps)) << "running_gpu_num of " << kBudgetHeliosVc;
  return running;
}

// Pod k of namespace earth holds one GPU at the steps where the cluster ran more than k.
// Samples are written a second before each step, so that Prometheus' lookback finds a
// pod at the steps it ran and not at the first step after it stopped.
std::string BudgetHeliosHistory(const std::vector<int>& running, int64_t start_s) {
  std::string dcgm = "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n", labels = "# TYPE kube_pod_labels gauge\n";
  int most = running.empty() ? 0 : *std::max_element(running.begin(), running.end());
  for (int k = 0; k < most; ++k) {
    char pod[32];
    std::snprintf(pod, sizeof pod, "hbv-%02d", k);
    std::string node = "hbv-node-" + std::to_string(k / 8);
    std::string dcgm_key = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"" + std::to_string(k % 8) + "\",UUID=\"GPU-" + pod +
                           "\",Hostname=\"" + node + "\",namespace=\"earth\",pod=\"" + pod + "\"} ";
    std::string labels_key = "kube_pod_labels{namespace=\"earth\",pod=\"" + std::string(pod) + "\",label_team=\"hbv\"} ";
    for (size_t j = 0; j < running.size(); ++j) {
      if (running[j] <= k) continue;
      std::string at = " " + std::to_string(start_s + static_cast<int64_t>(j) * kBudgetStepS - 1) + "\n";
      dcgm += dcgm_key + kBudgetBusy + at;
      labels += labels_key + "1" + at;
    }
  }
  return dcgm + labels;
}

// kube_pod_labels of the capture pods: trainer-0 under namespace/pod, infer-t4 under the
// exported_ spelling of a kube-state-metrics scraped without honor_labels; notebook-0 has
// none (its team comes from the label on its DCGM series).
std::string BudgetCapturePodLabels(int64_t start_s) {
  std::string trainer = "kube_pod_labels{namespace=\"ml\",pod=\"trainer-0\",label_team=\"vision\"} 1 ";
  std::string infer =
      "kube_pod_labels{exported_namespace=\"serving\",exported_pod=\"infer-t4\",namespace=\"kube-system\","
      "pod=\"kube-state-metrics-0\",label_team=\"inference\"} 1 ";
  std::string out = "# TYPE kube_pod_labels gauge\n";
  for (const std::string& key : {trainer, infer})
    for (int64_t j = 0; j < kBudgetSteps; ++j) out += key + std::to_string(start_s + j * kBudgetStepS) + "\n";
  return out;
}

// dcgm-exporter's pod-label option copies the pod's labels onto its series: trainer-0's say
// team "platform" (kube_pod_labels' "vision" wins), notebook-0's "research".
void BudgetAddDcgmTeamLabels(std::string* history) {
  for (auto [pod, team] : {std::pair{"trainer-0", "platform"}, std::pair{"notebook-0", "research"}}) {
    std::string from = std::string("pod=\"") + pod + "\"}", to = std::string("pod=\"") + pod + "\",team=\"" + team + "\"}";
    *history = ReplaceAll(*history, from, to);
  }
}

class BudgetForecastPrometheusTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    end_s_ = (now - 3600) / 86400 * 86400;  // the last midnight (UTC) an hour ago or more
    const int64_t start_s = end_s_ - 7 * 86400;
    std::vector<testing::CaptureAttribution> captures = {
        {kBudgetA100, "ub20-a100-k8s", false, "ml", "trainer-0", false},
        {kBudgetA100, "ub20-a100-k8s", true, "ml", "notebook-0", false},
        {kBudgetT4, "424773df46e0", false, "serving", "infer-t4", false},
    };
    int64_t series = 0;
    std::string history = testing::BuildOpenMetricsHistory(captures, {end_s_, 7 * 86400, kBudgetStepS}, &series);
    BudgetAddDcgmTeamLabels(&history);
    history.resize(history.rfind("# EOF\n"));
    running_ = BudgetHeliosRunningGpus();
    history += BudgetCapturePodLabels(start_s) + BudgetHeliosHistory(running_, start_s) + "# EOF\n";
    dir_ = testing::MakeTempDir("budget_forecast_prometheus");
    server_ = new testing::PrometheusServer(history, dir_);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(server_->ok()) << server_->error();
    ASSERT_EQ(running_.size(), static_cast<size_t>(kBudgetSteps));
  }

  static std::string Args(const std::string& extra) {
    return "cost chargeback --prometheus " + server_->url() + " --end " + std::to_string(end_s_) +
           " --range 7d --step 300s --gpu-model a100-40gb-sxm " + extra;
  }
  // GPU-hours the earth pods held: the trace's running GPUs x 5 minutes.
  static double EarthGpuHours() {
    double sum = 0;
    for (int r : running_) sum += r;
    return sum * kBudgetStepS / 3600.0;
  }
  static simdjson::dom::element Team(simdjson::dom::element doc, std::string_view name) {
    for (simdjson::dom::element t : doc["teams"].get_array())
      if (std::string_view(t["team"]) == name) return t;
    ADD_FAILURE() << "no team " << name;
    return doc["total"];
  }

  static inline testing::PrometheusServer* server_ = nullptr;
  static inline int64_t end_s_ = 0;
  static inline std::vector<int> running_;
  static inline std::string dir_;
};

TEST_F(BudgetForecastPrometheusTest, ByLabelTeamJoinsKubePodLabels) {
  RunResult r = RunKraken(Args("--by label=team --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(doc["teams"].get_array().size(), 4u);
  // trainer-0: kube_pod_labels says vision (its DCGM series' "platform" loses), the whole
  // A100 at GR_ENGINE_ACTIVE 0.99563, $1.99 per GPU-hour.
  simdjson::dom::element vision = Team(doc, "vision");
  EXPECT_EQ(int64_t(vision["pods"]), 1);
  EXPECT_NEAR(double(vision["allocated_gpu_hours"]), kBudgetWeekGpuHours, 1e-6);
  EXPECT_NEAR(double(vision["used_gpu_hours"]), kBudgetWeekGpuHours * 0.99563, 1e-6);
  EXPECT_NEAR(double(vision["cost_usd"]), 1.99 * kBudgetWeekGpuHours, 1e-6);
  // notebook-0: no kube_pod_labels, so the label on its DCGM series; its 1g.5gb slice.
  simdjson::dom::element research = Team(doc, "research");
  EXPECT_NEAR(double(research["allocated_gpu_hours"]), kBudgetWeekGpuHours / 7, 1e-6);
  EXPECT_NEAR(double(research["used_gpu_hours"]), kBudgetWeekGpuHours * 0.995687 / 7, 1e-6);
  // infer-t4: joined under the exported_ spelling; idle all week.
  simdjson::dom::element inference = Team(doc, "inference");
  EXPECT_NEAR(double(inference["allocated_gpu_hours"]), kBudgetWeekGpuHours, 1e-6);
  EXPECT_DOUBLE_EQ(double(inference["used_gpu_hours"]), 0);
  // The Helios cluster's pods: the GPUs it ran, step by step (4098.75 GPU-hours that week).
  simdjson::dom::element hbv = Team(doc, "hbv");
  EXPECT_NEAR(double(hbv["allocated_gpu_hours"]), EarthGpuHours(), 1e-6);
  EXPECT_NEAR(double(hbv["allocated_gpu_hours"]), 4098.75, 1e-9);
  EXPECT_NEAR(double(hbv["used_gpu_hours"]), EarthGpuHours() * 0.99563, 1e-6);
  EXPECT_NEAR(double(hbv["cost_usd"]), 1.99 * EarthGpuHours(), 1e-6);
  EXPECT_EQ(int64_t(hbv["pods"]), 64);
  // The table, for the log and docs/cost.md.
  RunResult text = RunKraken(Args("--by label=team"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::printf("%s", text.out.c_str());
  EXPECT_EQ(text.out.find("platform"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("(no team)"), std::string::npos) << text.out;
}

TEST_F(BudgetForecastPrometheusTest, ForecastMonthOfTheClusterTraceAndItsBudgetAlert) {
  std::string budgets = dir_ + "/forecast_budgets.csv";
  std::ofstream(budgets) << "team,monthly_usd\nearth,50000\nml,1700\n";
  RunResult r = RunKraken(Args("--forecast 24h --budgets " + budgets + " --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  // ml holds the same A100 and slice at every step: the forecast is that rate, exactly,
  // with no spread: (1 + 1/7) GPUs x $1.99 x 720 h (the straight line: 2017/2016 of it).
  simdjson::dom::element ml = Team(doc, "ml")["forecast"];
  ASSERT_TRUE(bool(ml["available"])) << r.out;
  EXPECT_NEAR(double(ml["month_usd"]), 8.0 / 7 * 1.99 * 720, 1e-6);
  EXPECT_NEAR(double(ml["month_low_usd"]), 8.0 / 7 * 1.99 * 720, 1e-6);
  EXPECT_NEAR(double(ml["month_high_usd"]), 8.0 / 7 * 1.99 * 720, 1e-6);
  EXPECT_NEAR(double(ml["month_gpu_hours"]), 8.0 / 7 * 720, 1e-6);
  // earth: on that week of the trace the back-test chose the naive forecast (the last
  // step's 48 GPUs held) over the seasonal and local means; its 95 % interval comes from
  // its own errors a day ahead, which held 99.2 % of the held-out targets.
  ASSERT_EQ(running_.back(), 48);
  simdjson::dom::element f = Team(doc, "earth")["forecast"];
  ASSERT_TRUE(bool(f["available"])) << r.out;
  EXPECT_EQ(std::string_view(f["horizon"]), "24h");
  EXPECT_EQ(std::string_view(f["method"]), "naive");
  EXPECT_NEAR(double(f["month_usd"]), 48 * 1.99 * 720, 1e-6);
  EXPECT_NEAR(double(f["month_gpu_hours"]), 48 * 720, 1e-6);
  EXPECT_NEAR(double(f["month_low_usd"]), 17045.8425, 0.01);
  EXPECT_NEAR(double(f["month_high_usd"]), 126919.9612, 0.01);
  EXPECT_NEAR(double(f["coverage95"]), 0.9921, 1e-4);
  // The straight line (the week's mean of 24.4 GPUs) stays under earth's $50000; the
  // forecast does not: the text says OVER, ml's flat $1637.49 stays under its $1700.
  EXPECT_NEAR(double(Team(doc, "earth")["projected_month_usd"]), 1.99 * EarthGpuHours() * 30 / 7, 1e-4);
  RunResult text = RunKraken(Args("--forecast 24h --budgets " + budgets));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::printf("%s", text.out.c_str());
  EXPECT_NE(text.out.find("  earth      64          4098.75     4080.84  99.6%  $8156.51     $35.64      $34956.48  "
                          "$68774.40 [$17045.84, $126919.96]  $50000.00 OVER"),
            std::string::npos)
      << text.out;
  size_t ml_row = text.out.find("\n  ml ");
  ASSERT_NE(ml_row, std::string::npos) << text.out;
  std::string ml_line = text.out.substr(ml_row + 1, text.out.find('\n', ml_row + 1) - ml_row - 1);
  EXPECT_NE(ml_line.find("$1637.49 [$1637.49, $1637.49]"), std::string::npos) << ml_line;
  EXPECT_TRUE(ml_line.ends_with("$1700.00")) << ml_line;
  // A budget between the forecast and its upper bound is AT RISK; the gauges let the
  // alert fire on either.
  std::ofstream(budgets) << "team,monthly_usd\nearth,100000\n";
  RunResult risk = RunKraken(Args("--forecast 24h --budgets " + budgets));
  EXPECT_NE(risk.out.find("$100000.00 AT RISK"), std::string::npos) << risk.out;
  RunResult gauges = RunKraken(Args("--forecast 24h --budgets " + budgets + " --output-format prometheus"));
  ASSERT_EQ(gauges.exit_code, 0) << gauges.err;
  EXPECT_NE(gauges.out.find("kraken_budget_forecast_month_usd{team=\"earth\"} 68774.4000"), std::string::npos)
      << gauges.out;
  EXPECT_NE(gauges.out.find("kraken_budget_forecast_month_high_usd{team=\"earth\"} 126919.96"), std::string::npos)
      << gauges.out;
  EXPECT_NE(gauges.out.find("kraken_budget_forecast_month_low_usd{team=\"earth\"} 17045.84"), std::string::npos)
      << gauges.out;
  // Without --forecast neither the column nor the gauges appear.
  RunResult plain = RunKraken(Args("--output-format prometheus"));
  EXPECT_EQ(plain.out.find("kraken_budget_forecast_month"), std::string::npos) << plain.out;
  ExpectOneLineError(RunKraken(Args("--forecast 500it")), "--forecast expects a horizon such as 24h");
}

TEST_F(BudgetForecastPrometheusTest, ServeExposesTheForecastGauges) {
  std::string budgets = dir_ + "/serve_forecast_budgets.csv";
  std::ofstream(budgets) << "team,monthly_usd\nearth,50000\n";
  server::ServeOptions options;
  options.budget_prometheus = server_->url();
  options.budgets_file = budgets;
  options.budget_range = "7d";
  options.budget_gpu_model = "a100-40gb-sxm";
  options.budget_forecast = "24h";
  server::testing::TestServer serve(options);
  auto res = serve.Client()->Get("/api/v1/cost/budgets/metrics");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  // The range ends now, up to a day after the history: the series' last steps hold no
  // GPU, so the naive month is whatever the forecaster chose on that; the gauges are there.
  for (const char* gauge : {"kraken_budget_forecast_month_usd{team=\"earth\"} ",
                            "kraken_budget_forecast_month_high_usd{team=\"earth\"} ",
                            "kraken_budget_limit_usd{team=\"earth\"} 50000.0000"})
    EXPECT_NE(res->body.find(gauge), std::string::npos) << gauge << "\n" << res->body;
}

}  // namespace
}  // namespace kraken
