// `kraken cost chargeback` against a real Prometheus on loopback holding a week of history
// built from the real dcgm-exporter captures (../shared/data/dcgm): the busy values are the
// captures' own, unchanged at every 5-minute sample; which pod and namespace hold each GPU
// is the test's (the captures were taken without pods).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_test_server.h"
#include "server/test_server.h"

namespace kraken {
namespace {

constexpr char kChargebackA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kChargebackT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";
// A week at 300 s steps, both ends included.
constexpr double kChargebackSamples = 7 * 288 + 1;
constexpr double kChargebackGpuHours = kChargebackSamples * 300 / 3600.0;

class ChargebackPrometheusTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    end_s_ = now / 300 * 300 - 3600;
    testing::HistoryShape shape{end_s_, 7 * 86400, 300};
    std::vector<testing::CaptureAttribution> captures = {
        {kChargebackA100, "ub20-a100-k8s", false, "ml", "trainer-0", true},
        {kChargebackA100, "ub20-a100-k8s", true, "ml", "notebook-0", true},
        {kChargebackT4, "424773df46e0", false, "serving", "infer-t4", false},
    };
    int64_t series = 0;
    std::string history = testing::BuildOpenMetricsHistory(captures, shape, &series);
    dir_ = testing::MakeTempDir("chargeback_prometheus");
    server_ = new testing::PrometheusServer(history, dir_);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static std::string Args(const std::string& extra) {
    return "cost chargeback --prometheus " + server_->url() + " --end " + std::to_string(end_s_) +
           " --range 7d --step 300s --gpu-model a100-40gb-sxm " + extra;
  }

  static inline testing::PrometheusServer* server_ = nullptr;
  static inline int64_t end_s_ = 0;
  static inline std::string dir_;
};

TEST_F(ChargebackPrometheusTest, PerNamespaceFromTheRealDcgmValues) {
  std::string budgets = dir_ + "/budgets.csv";
  std::ofstream(budgets) << "team,monthly_usd\nml,1000\nserving,50\n";
  RunResult r = RunKraken(Args("--budgets " + budgets + " --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(int64_t(doc["step_s"]), 300);
  simdjson::dom::array teams = doc["teams"].get_array();
  ASSERT_EQ(teams.size(), 2u);
  // ml: the whole A100 (GR_ENGINE_ACTIVE 0.995630) and its 1g.5gb instance (0.995687, 1/7 of
  // the GPU), at the catalog's cheapest A100 40 GB GPU-hour ($1.99, Lambda).
  simdjson::dom::element ml = teams.at(0);
  EXPECT_EQ(std::string_view(ml["team"]), "ml");
  EXPECT_EQ(int64_t(ml["pods"]), 2);
  double allocated = kChargebackGpuHours * (1 + 1.0 / 7);
  double used = kChargebackGpuHours * (0.99563 + 0.995687 / 7);
  EXPECT_NEAR(double(ml["allocated_gpu_hours"]), allocated, 1e-6);
  EXPECT_NEAR(double(ml["used_gpu_hours"]), used, 1e-6);
  EXPECT_NEAR(double(ml["cost_usd"]), 1.99 * allocated, 1e-6);
  EXPECT_NEAR(double(ml["idle_cost_usd"]), 1.99 * (allocated - used), 1e-6);
  EXPECT_NEAR(double(ml["projected_month_usd"]), 1.99 * allocated * 30 / 7, 1e-6);
  EXPECT_DOUBLE_EQ(double(ml["budget_usd"]), 1000);
  // serving: the T4 (DCGM_FI_DEV_GPU_UTIL 0) is allocated all week and idle; no T4 price.
  simdjson::dom::element serving = teams.at(1);
  EXPECT_EQ(std::string_view(serving["team"]), "serving");
  EXPECT_NEAR(double(serving["allocated_gpu_hours"]), kChargebackGpuHours, 1e-6);
  EXPECT_DOUBLE_EQ(double(serving["used_gpu_hours"]), 0);
  EXPECT_EQ(std::string_view(doc["unpriced_models"].at(0)), "t4");
  EXPECT_NEAR(double(doc["total"]["allocated_gpu_hours"]), allocated + kChargebackGpuHours, 1e-6);
}

TEST_F(ChargebackPrometheusTest, TextTableWithBudgetVerdict) {
  std::string budgets = dir_ + "/text_budgets.csv";
  std::ofstream(budgets) << "team,monthly_usd\nml,1000\nserving,50\n";
  RunResult r = RunKraken(Args("--budgets " + budgets));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::printf("%s", r.out.c_str());  // the table in the test log (docs/cost.md quotes it)
  EXPECT_NE(r.out.find("  ml          2           192.10      191.26  99.6%  $382.27      $1.67       $1638.30  "
                       "$1000.00 OVER"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  serving     1           168.08        0.00   0.0%    $0.00      $0.00          $0.00"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("no price for GPU model(s): t4"), std::string::npos) << r.out;
}

TEST_F(ChargebackPrometheusTest, ByLabelFlatPriceCsvAndBudgetMetrics) {
  RunResult csv = RunKraken(Args("--by label=Hostname --usd-per-gpu-hour 2.5 --output-format csv"));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("team,pods,allocated_gpu_hours,used_gpu_hours,utilization,cost_usd,", 0), 0u) << csv.out;
  // Per node: the T4 host's week at $2.50 = 168.0833 h x 2.5.
  EXPECT_NE(csv.out.find("424773df46e0,1,168.0833,0.0000,0.0000,420.21,420.21,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("ub20-a100-k8s,2,192.0952,"), std::string::npos) << csv.out;
  std::string budgets = dir_ + "/budgets2.csv";
  std::ofstream(budgets) << "team,monthly_usd\nserving,50\n";
  RunResult metrics = RunKraken(Args("--usd-per-gpu-hour 1 --budgets " + budgets + " --output-format prometheus"));
  ASSERT_EQ(metrics.exit_code, 0) << metrics.err;
  EXPECT_NE(metrics.out.find("kraken_budget_limit_usd{team=\"serving\"} 50.0000"), std::string::npos) << metrics.out;
  EXPECT_NE(metrics.out.find("kraken_budget_spent_usd{team=\"serving\"} 168.0833"), std::string::npos) << metrics.out;
  EXPECT_NE(metrics.out.find("kraken_budget_projected_month_usd{team=\"serving\"} 720.3571"), std::string::npos)
      << metrics.out;
  RunResult html = RunKraken(Args("--output-format html"));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(html.out.find("<section id=\"chargeback\">"), std::string::npos);
}

TEST_F(ChargebackPrometheusTest, ServeExposesBudgetMetricsForAlerting) {
  std::string budgets = dir_ + "/serve_budgets.csv";
  std::ofstream(budgets) << "team,monthly_usd\nml,1000\n";
  server::ServeOptions options;
  options.budget_prometheus = server_->url();
  options.budgets_file = budgets;
  options.budget_range = "7d";
  options.budget_gpu_model = "a100-40gb-sxm";
  server::testing::TestServer serve(options);
  auto res = serve.Client()->Get("/api/v1/cost/budgets/metrics");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_NE(res->get_header_value("Content-Type").find("text/plain"), std::string::npos);
  EXPECT_NE(res->body.find("kraken_budget_limit_usd{team=\"ml\"} 1000.0000"), std::string::npos) << res->body;
  // The range ends now: the history ended an hour ago, so the ml team's cost is its
  // week less the last hour, allocated GPU-hours x $1.99 (A100 40 GB), within a sample.
  const std::string spent = "kraken_budget_spent_usd{team=\"ml\"} ";
  size_t at = res->body.find(spent);
  ASSERT_NE(at, std::string::npos) << res->body;
  double usd = std::stod(res->body.substr(at + spent.size()));
  EXPECT_NEAR(usd, 1.99 * kChargebackGpuHours * (1 + 1.0 / 7) * 167 / 168, 0.5) << res->body;
  server::testing::TestServer unconfigured;
  auto missing = unconfigured.Client()->Get("/api/v1/cost/budgets/metrics");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(ChargebackPrometheusTest, ReportCarriesTheChargebackSection) {
  // `kraken report` of a real capture with the same chargeback: the document's
  // "chargeback" is `cost chargeback --json`'s, which the page renders (web/src/chargeback_view.js).
  std::string capture = testing::DataPath("nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt");
  std::string flags = " --chargeback-prometheus " + server_->url() + " --chargeback-end " + std::to_string(end_s_) +
                      " --chargeback-range 7d --chargeback-step 300s --chargeback-gpu-model a100-40gb-sxm";
  RunResult data = RunKraken("report " + capture + " --data-only -o -" + flags);
  ASSERT_EQ(data.exit_code, 0) << data.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(data.out);
  simdjson::dom::element charge = doc["chargeback"];
  EXPECT_EQ(int64_t(charge["step_s"]), 300);
  simdjson::dom::element ml = charge["teams"].at(0);
  EXPECT_EQ(std::string_view(ml["team"]), "ml");
  double allocated = kChargebackGpuHours * (1 + 1.0 / 7);
  EXPECT_NEAR(double(ml["cost_usd"]), 1.99 * allocated, 1e-6);
  EXPECT_EQ(std::string_view(charge["teams"].at(1)["team"]), "serving");
  // The page inlines the same document.
  std::string html = dir_ + "/report_chargeback.html";
  RunResult page = RunKraken("report " + capture + " -o " + html + flags);
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_NE(testing::ReadFileOrDie(html).find("\"chargeback\":"), std::string::npos);
  // Without the flag the document has no chargeback.
  RunResult plain = RunKraken("report " + capture + " --data-only -o -");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("\"chargeback\":"), std::string::npos);
  // A bad chargeback flag fails the report before anything is written.
  std::string bad = dir_ + "/report_bad.html";
  ExpectOneLineError(RunKraken("report " + capture + " -o " + bad + flags + " --chargeback-by team"),
                     "the report's chargeback section: --by expects namespace or label=NAME");
  EXPECT_FALSE(std::filesystem::exists(bad));
}

TEST_F(ChargebackPrometheusTest, BadFlagsAreOneLineErrors) {
  ExpectOneLineError(RunKraken(Args("--by team")), "--by expects namespace or label=NAME");
  std::string budgets = dir_ + "/bad_budgets.csv";
  std::ofstream(budgets) << "team,monthly_usd\nml,lots\n";
  ExpectOneLineError(RunKraken(Args("--budgets " + budgets)), budgets + ":2: monthly_usd 'lots'");
  ExpectOneLineError(RunKraken(Args("--output-format xml")), "--output-format expects");
}

}  // namespace
}  // namespace kraken
