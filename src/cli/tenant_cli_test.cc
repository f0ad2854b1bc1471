// `kraken plan tenants` end to end on real per-operator profiles (../shared/data/orion):
// three tenants' inference and training workloads on two A100s (one allowing MIG) and a V100.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string TenantsFile(const std::string& mobilenet_p99) {
  std::string path = testing::MakeTempDir("tenants_cli") + "/tenants.csv";
  std::ofstream(path) << "tenant,workload,profile,type,p99_ms,rate_per_s,min_throughput\n"
                      << "search,mobilenet-infer," << testing::DataPath("orion/mobilenetv2_4_fwd.csv")
                      << ",inference," << mobilenet_p99 << ",20,\n"
                      << "search,resnet50-infer," << testing::DataPath("orion/resnet50_4_fwd.csv")
                      << ",inference,60,10,\n"
                      << "research,resnet50-train," << testing::DataPath("orion/resnet50_32_fb1.csv")
                      << ",training,,,0.5\n"
                      << "research,bert-train," << testing::DataPath("orion/bert_8_fb1.csv") << ",training,,,0.4\n"
                      << "ads,txl-infer," << testing::DataPath("orion/transformer_xl_4_fwd.csv")
                      << ",inference,200,2,\n";
  return path;
}

constexpr char kTenantGpus[] = " --gpus a100-40gb-sxm:mig=a,a100-40gb-sxm=b,v100-sxm2@2.5=c --json";

TEST(TenantPlanCli, CostPacksAndPerformanceSpreadsWithEverySlaMet) {
  std::string file = TenantsFile("40");
  simdjson::dom::parser parser;
  RunResult cost = RunKraken("plan tenants " + file + kTenantGpus + " --optimize cost");
  ASSERT_EQ(cost.exit_code, 0) << cost.err;
  simdjson::dom::element doc = parser.parse(cost.out);
  EXPECT_TRUE(bool(doc["all_placed"]));
  EXPECT_EQ(int64_t(doc["gpus_used"]), 2);
  EXPECT_NEAR(double(doc["usd_per_hour"]), 2 * 1.99, 1e-9);  // the catalog's A100 40 GB GPU-hour
  EXPECT_EQ(doc["gpus"].at(0)["workloads"].get_array().size(), 4u);
  EXPECT_EQ(std::string_view(doc["gpus"].at(0)["mode"]), "mps");
  EXPECT_EQ(doc["gpus"].at(2)["workloads"].get_array().size(), 0u);  // the dearer V100 stays idle
  for (simdjson::dom::element w : doc["workloads"].get_array()) {
    EXPECT_TRUE(bool(w["sla"]["ok"])) << std::string_view(w["name"]);
  }
  simdjson::dom::element mobilenet = doc["workloads"].at(0);
  EXPECT_LE(double(mobilenet["p99_ms"]), 40.0);
  EXPECT_GT(double(mobilenet["slowdown"]), 1.0);

  RunResult perf = RunKraken("plan tenants " + file + kTenantGpus + " --optimize performance");
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  simdjson::dom::parser perf_parser;  // a second parser: parsing again would invalidate `doc`
  simdjson::dom::element p = perf_parser.parse(perf.out);
  EXPECT_EQ(int64_t(p["gpus_used"]), 3);
  double worst_cost = 0, worst_perf = 0;
  for (simdjson::dom::element w : doc["workloads"].get_array()) worst_cost = std::max(worst_cost, double(w["slowdown"]));
  for (simdjson::dom::element w : p["workloads"].get_array()) worst_perf = std::max(worst_perf, double(w["slowdown"]));
  EXPECT_LT(worst_perf, worst_cost);
}

TEST(TenantPlanCli, AnUnmeetableSlaIsNotPlacedAndSaysWhy) {
  RunResult r = RunKraken("plan tenants " + TenantsFile("0.5") + kTenantGpus + " --optimize balanced");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_FALSE(bool(doc["all_placed"]));
  simdjson::dom::element mobilenet = doc["workloads"].at(0);
  EXPECT_TRUE(mobilenet["gpu"].is_null());
  std::string why = std::string(std::string_view(mobilenet["why"]));
  EXPECT_NE(why.find("not placed: no GPU meets its SLA"), std::string::npos) << why;
  EXPECT_NE(why.find("> target 0.5 ms"), std::string::npos) << why;
}

TEST(TenantPlanCli, BadTenantsFileAndFlagsAreOneLineErrors) {
  std::string dir = testing::MakeTempDir("tenants_bad");
  std::ofstream(dir + "/t.csv") << "tenant,workload,profile,type,p99_ms\nx,y," << testing::DataPath("orion/bert_2_fwd.csv")
                                << ",serving,10\n";
  ExpectOneLineError(RunKraken("plan tenants " + dir + "/t.csv --gpus t4"), dir + "/t.csv:2: type must be inference");
  std::string file = TenantsFile("40");
  ExpectOneLineError(RunKraken("plan tenants " + file + " --gpus t4 --optimize cheap"), "--optimize expects");
  ExpectOneLineError(RunKraken("plan tenants " + file + " --gpus b9000"), "--gpus 'b9000'");
  std::ofstream(dir + "/missing.csv") << "tenant,workload,profile\nx,y,nothere.csv\n";
  ExpectOneLineError(RunKraken("plan tenants " + dir + "/missing.csv --gpus t4"), "nothere.csv");
}

}  // namespace
}  // namespace kraken
