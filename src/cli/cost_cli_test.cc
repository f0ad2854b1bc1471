// `kraken cost recommend` end to end on real traces from ../shared/data/kineto.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

// A V100 DDP training rank with profile_memory on: 11.9 GiB peak, GPU busy 57.7 %.
constexpr char kCostV100Trace[] = "kineto/hta/df_index_resolver/df_index_resolver.json.gz";

std::string CostPricesFile(const std::string& text) {
  std::string path = testing::MakeTempDir("cost_cli") + "/prices.csv";
  std::ofstream(path) << text;
  return path;
}

TEST(CostRecommendCli, RealV100TraceOnOwnPricesWithCurrentInstance) {
  std::string prices = CostPricesFile(
      "provider,instance,region,gpu_model,gpus,on_demand_usd_per_hour,spot_usd_per_hour\n"
      "onprem,v100-box,lab,v100-sxm2,1,3.06,\n"
      "onprem,a100-box,lab,a100-40gb-sxm,1,2.00,1.00\n"
      "onprem,t4-box,lab,t4,1,0.50,\n"
      "onprem,small-box,lab,l4,1,0.40,\n");
  RunResult r = RunKraken("cost recommend " + testing::DataPath(kCostV100Trace) + " --prices " + prices +
                          " --current v100-box --headroom 120% --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element w = parser.parse(r.out)["workloads"].at(0);
  EXPECT_EQ(std::string_view(w["demand"]["gpu_model"]), "v100-sxm2");
  EXPECT_EQ(std::string_view(w["demand"]["workload_type"]), "training");
  EXPECT_EQ(std::string_view(w["demand"]["bound"]), "compute");
  EXPECT_EQ(int64_t(w["demand"]["memory_peak_bytes"]), 12782141440);
  EXPECT_NEAR(double(w["demand"]["gpu_busy"]), 0.5774, 1e-4);
  EXPECT_EQ(std::string_view(w["current"]["instance"]), "v100-box");
  // 12.78 GB x 2.2 = 28.1 GB (26.2 GiB): the 16 GiB T4 and the 24 GiB L4 cannot hold it.
  EXPECT_EQ(int64_t(w["rejected"]["memory"]), 2);
  simdjson::dom::array ranked = w["ranked"].get_array();
  ASSERT_EQ(ranked.size(), 2u);
  simdjson::dom::element a100 = ranked.at(0);
  EXPECT_EQ(std::string_view(a100["instance"]), "a100-box");
  double ratio = double(a100["time_ratio"]);
  // 42 % of GPU-busy time is time on the V100 that runs ~2.5x faster, 18 % ~1.7x faster.
  EXPECT_NEAR(ratio, 0.8093, 1e-4);
  EXPECT_NEAR(double(a100["usd_per_work_hour"]), 2.0 * ratio, 1e-6);
  EXPECT_NEAR(double(a100["savings_fraction"]), 1 - 2.0 * ratio / 3.06, 1e-6);
  EXPECT_NEAR(double(a100["savings_usd_per_month"]), (3.06 - 2.0 * ratio) * 730, 1e-4);
  EXPECT_EQ(std::string_view(ranked.at(1)["basis"]), "same GPU (v100-sxm2)");
  EXPECT_DOUBLE_EQ(double(ranked.at(1)["savings_fraction"]), 0);
}

TEST(CostRecommendCli, BuiltInCatalogWithBudgetAndSpotText) {
  RunResult r = RunKraken("cost recommend " + testing::DataPath(kCostV100Trace) + " --cloud gcp --spot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // GCP's one GPU instance in the catalog, at its spot price; no V100 instance is priced.
  EXPECT_NE(r.out.find("a3-highgpu-1g"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("$6.57 spot"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("current: none priced (no catalog instance has the measured GPU (v100-sxm2))"),
            std::string::npos)
      << r.out;
  RunResult budget = RunKraken("cost recommend " + testing::DataPath(kCostV100Trace) + " --budget 1000 --json");
  ASSERT_EQ(budget.exit_code, 0) << budget.err;
  simdjson::dom::parser parser;
  simdjson::dom::element w = parser.parse(budget.out)["workloads"].at(0);
  // Only Lambda's A10 ($1.29/h = $941.70/month) is under $1000/month.
  ASSERT_EQ(w["ranked"].get_array().size(), 1u);
  EXPECT_EQ(std::string_view(w["ranked"].at(0)["instance"]), "gpu_1x_a10");
  EXPECT_EQ(int64_t(w["rejected"]["budget"]), 18);
}

TEST(CostRecommendCli, A100TraceWithoutMemoryRecordKeepsToGpusAsLarge) {
  // Rank 0 of a 16-rank TorchRec job on an A100-SXM4-80GB; no allocator record.
  RunResult r = RunKraken("cost recommend " +
                          testing::DataPath("kineto/hta/negative_queue_length_values_check/rank0.json.gz") +
                          " --cloud any --budget 5000 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element w = parser.parse(r.out)["workloads"].at(0);
  EXPECT_TRUE(w["demand"]["memory_peak_bytes"].is_null());
  EXPECT_EQ(std::string_view(w["current"]["instance"]), "HGX A100");  // CoreWeave, $21.60/h
  // 80 GB GPUs only: the 40 GB A100s, the A10, the L40S are left out.
  EXPECT_EQ(int64_t(w["rejected"]["memory"]), 6);
  simdjson::dom::element first = w["ranked"].at(0);
  EXPECT_EQ(std::string_view(first["instance"]), "gpu_1x_h100_pcie");
  EXPECT_NEAR(double(first["savings_fraction"]), 1 - double(first["usd_per_work_hour"]) / 21.60, 1e-9);
  EXPECT_LT(double(first["time_ratio"]), 1.0);
}

TEST(CostRecommendCli, BadPricesAndFlagsAreOneLineErrors) {
  std::string trace = testing::DataPath(kCostV100Trace);
  std::string prices = CostPricesFile("provider,instance,gpu_model,gpus,on_demand_usd_per_hour\nx,y,t4,0,1\n");
  ExpectOneLineError(RunKraken("cost recommend " + trace + " --prices " + prices), prices + ":2: gpus '0'");
  ExpectOneLineError(RunKraken("cost recommend " + trace + " --cloud oracle"), "--cloud 'oracle'");
  ExpectOneLineError(RunKraken("cost recommend " + trace + " --current m5.large"), "--current 'm5.large'");
  ExpectOneLineError(RunKraken("cost recommend " + trace + " --prices /nonexistent.csv"), "/nonexistent.csv");
}

}  // namespace
}  // namespace kraken
