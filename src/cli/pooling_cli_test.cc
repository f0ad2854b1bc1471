// End-to-end tests of `kraken disagg` and `kraken mig-plan`: readable and JSON output on
// real inputs, and the one-line error contract for bad flags (with the --max-slowdown of
// the pooling analysis, `analyze --prometheus` and `annotate`).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

const std::string kResnet = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";

TEST(PoolingCliTest, DisaggTextShowsScoreStrategyAndLinks) {
  RunResult r = RunKraken("disagg " + testing::DataPath(kResnet));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("score 0.72  (decoupling n/a, network 0.76, temporal 0.67; 2 of 3 parts measured)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("recommended: dedicated - busy 60.6%"), std::string::npos);
  EXPECT_NE(r.out.find("100Gbps,5us (scored)"), std::string::npos);
  EXPECT_EQ(r.out.find("-- network"), std::string::npos);  // no --explain
  RunResult explained = RunKraken("disagg --explain --link 10Gbps,20us " + testing::DataPath(kResnet));
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  EXPECT_NE(explained.out.find("10Gbps,20us (scored)"), std::string::npos);
  EXPECT_NE(explained.out.find("-- network"), std::string::npos);
  EXPECT_NE(explained.out.find("assumes: "), std::string::npos);
}

TEST(PoolingCliTest, DisaggJsonHasTheDocumentedKeys) {
  RunResult r = RunKraken("disagg --json --explain --price 3 --reference " +
                    testing::DataPath("alibaba-dlrm-v2025/disaggregated_DLRM_trace.csv.gz") + " " +
                    testing::DataPath("kineto/hta/nccl_parser_config/nccl_data.json.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  simdjson::dom::array workloads;
  ASSERT_EQ(doc["workloads"].get_array().get(workloads), simdjson::SUCCESS);
  ASSERT_EQ(workloads.size(), 1u);
  simdjson::dom::element w = workloads.at(0);
  std::string_view strategy;
  ASSERT_EQ(w["strategy"]["name"].get_string().get(strategy), simdjson::SUCCESS);
  EXPECT_EQ(strategy, "time-sliced");
  double price = 0, score = 0, lo = 0;
  EXPECT_EQ(w["savings"]["price_per_gpu_hour"].get_double().get(price), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(price, 3);
  EXPECT_EQ(w["score"].get_double().get(score), simdjson::SUCCESS);
  EXPECT_NEAR(score, 0.586842, 1e-6);
  EXPECT_EQ(w["impact"]["lo"].get_double().get(lo), simdjson::SUCCESS);
  for (const char* part : {"decoupling", "network", "temporal"}) {
    bool measured = false;
    EXPECT_EQ(w["parts"][part]["measured"].get_bool().get(measured), simdjson::SUCCESS) << part;
  }
  simdjson::dom::array links, terms;
  ASSERT_EQ(w["links"].get_array().get(links), simdjson::SUCCESS);
  EXPECT_EQ(links.size(), 3u);
  ASSERT_EQ(w["explain"]["network"]["terms"].get_array().get(terms), simdjson::SUCCESS);
  EXPECT_GT(terms.size(), 5u);
  int64_t gpu_instances = 0;
  ASSERT_EQ(doc["reference"]["gpu_node_instances"].get_int64().get(gpu_instances), simdjson::SUCCESS);
  EXPECT_EQ(gpu_instances, 7386);
}

TEST(PoolingCliTest, MigPlanFromCsvAndFlags) {
  std::string csv = testing::MakeTempDir("mig_csv") + "/plan.csv";
  std::ofstream(csv) << "name,memory_gib,sm_fraction,type,comm_share\n"
                        "bert,6,0.10,inference,\nllama,30,0.40,inference,\ntrainer,70,0.9,training,0.4\n";
  RunResult r = RunKraken("mig-plan --gpu h100-sxm " + csv + " --workload resnet:14:0.2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU 0: 3g.40gb@0 llama, 2g.20gb@4 resnet, 1g.10gb@6 bert"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPUs: 1 with MIG + 1 whole = 2, vs 4 with one GPU per workload: density gain 2.00x"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Do not slice:\n  - trainer: communicates heavily over NCCL"), std::string::npos);

  // One workload: its slice would be alone on its GPU, so by default it keeps the GPU.
  RunResult alone = RunKraken("mig-plan --headroom 0% --gpu a100-40gb-sxm --workload a:9:0.2");
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_NE(alone.out.find("  - a: alone on its GPU: 2g.10gb covers it (slowdown not checked) but no other "
                           "workload's slice fits beside it: slicing would free no GPU\n  (--slice-alone slices"),
            std::string::npos)
      << alone.out;
  RunResult j = RunKraken("mig-plan --json --slice-alone --headroom 0% --gpu a100-40gb-sxm --workload a:9:0.2");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(j.out).get(doc), simdjson::SUCCESS);
  std::string_view profile;
  ASSERT_EQ(doc["workloads"].at(0)["profile"].get_string().get(profile), simdjson::SUCCESS);
  EXPECT_EQ(profile, "2g.10gb");
  bool slice_alone = false, is_alone = true;
  EXPECT_EQ(doc["slice_alone"].get_bool().get(slice_alone), simdjson::SUCCESS);
  EXPECT_TRUE(slice_alone);
  EXPECT_EQ(doc["workloads"].at(0)["alone"].get_bool().get(is_alone), simdjson::SUCCESS);
  EXPECT_FALSE(is_alone);
  double gain = 0;
  EXPECT_EQ(doc["density_gain"].get_double().get(gain), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(gain, 1);
}

TEST(PoolingCliTest, DisaggMaxSlowdownBoundsTheMigSlice) {
  const std::string bert = testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/bert-infer.cupti.json.gz";
  // Default 10 %: every slice below 7g would slow it 16.9 % or more; its idle gaps are shared.
  RunResult r = RunKraken("disagg --explain " + bert);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("recommended: time-sliced - GPU idle 82.9%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1g.20gb: expected slowdown 66.5% > 10.0%"), std::string::npos) << r.out;
  RunResult wider = RunKraken("disagg --json --max-slowdown 20 " + bert);
  ASSERT_EQ(wider.exit_code, 0) << wider.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(wider.out).get(doc), simdjson::SUCCESS) << wider.out.substr(0, 200);
  simdjson::dom::element strategy = doc["workloads"].at(0)["strategy"];
  std::string_view name, profile;
  double budget = 0;
  EXPECT_EQ(strategy["name"].get_string().get(name), simdjson::SUCCESS);
  EXPECT_EQ(name, "MIG slice");
  EXPECT_EQ(strategy["mig_profile"].get_string().get(profile), simdjson::SUCCESS);
  EXPECT_EQ(profile, "3g.40gb");
  EXPECT_EQ(strategy["mig_max_slowdown"].get_double().get(budget), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(budget, 0.20);
}

TEST(PoolingCliTest, MigPlanMaxSlowdownBoundsTheSlice) {
  const std::string bert = testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/bert-infer.cupti.json.gz";
  // Default 10 %: every slice below 7g is predicted 16.9 % slower or more.
  RunResult r = RunKraken("mig-plan --gpu h100-sxm " + bert);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("memory headroom 10.0%, slowdown budget 10.0%\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is predicted more than 10.0% slower: 1g.20gb 66.5%"), std::string::npos) << r.out;
  RunResult any = RunKraken("mig-plan --json --max-slowdown 1000 --slice-alone --gpu h100-sxm " + bert);
  ASSERT_EQ(any.exit_code, 0) << any.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(any.out).get(doc), simdjson::SUCCESS) << any.out.substr(0, 200);
  double budget = 0, expected = 0;
  EXPECT_EQ(doc["max_slowdown"].get_double().get(budget), simdjson::SUCCESS);
  EXPECT_DOUBLE_EQ(budget, 10);
  simdjson::dom::element workload = doc["workloads"].at(0);
  std::string_view profile;
  bool checked = false;
  EXPECT_EQ(workload["profile"].get_string().get(profile), simdjson::SUCCESS);
  EXPECT_EQ(profile, "1g.20gb");
  EXPECT_EQ(workload["slowdown_checked"].get_bool().get(checked), simdjson::SUCCESS);
  EXPECT_TRUE(checked);
  EXPECT_EQ(workload["expected_slowdown"].get_double().get(expected), simdjson::SUCCESS);
  EXPECT_NEAR(expected, 0.665, 5e-4);
}

TEST(PoolingCliTest, BadFlagsGiveOneLineErrors) {
  std::string trace = testing::DataPath(kResnet);
  ExpectOneLineError(RunKraken("disagg --link 100Gbps " + trace), "--link expects BANDWIDTH,LATENCY");
  // The app layer's message, the same text GET /api/v1/profiles/{id}/disagg?price=-1 answers
  // (server/disagg_route_test.cc).
  RunResult negative_price = RunKraken("disagg --price -1 " + trace);
  ExpectOneLineError(negative_price, "--price");
  EXPECT_EQ(negative_price.err, "kraken: error: price (--price) must be >= 0 $ per GPU-hour, got -1\n");
  ExpectOneLineError(RunKraken("disagg --max-slowdown 1001 " + trace),
                     "max_slowdown (--max-slowdown) must be between 0 and 1000 (%), got 1001");
  ExpectOneLineError(RunKraken("disagg --max-slowdown -1 " + trace), "(--max-slowdown) must be between 0 and 1000");
  ExpectOneLineError(RunKraken("disagg --max-slowdown ten " + trace), "--max-slowdown");
  ExpectOneLineError(RunKraken("disagg --max-slowdown nan " + trace), "--max-slowdown");
  ExpectOneLineError(RunKraken("mig-plan --gpu v100-sxm2 --workload a:1:0.1"), "has no MIG geometry");
  ExpectOneLineError(RunKraken("mig-plan --headroom lots --workload a:1:0.1"), "--headroom expects a percentage");
  ExpectOneLineError(RunKraken("mig-plan --workload a:1"), "--workload expects NAME:MEMORY_GIB:SM_FRACTION");
  ExpectOneLineError(RunKraken("mig-plan --max-slowdown 1001 --workload a:1:0.1"),
                     "max_slowdown (--max-slowdown) must be between 0 and 1000");
  ExpectOneLineError(RunKraken("mig-plan --max-slowdown -1 --workload a:1:0.1"),
                     "max_slowdown (--max-slowdown) must be between 0 and 1000");
  ExpectOneLineError(RunKraken("mig-plan --max-slowdown nan --workload a:1:0.1"), "--max-slowdown");
  ExpectOneLineError(RunKraken("mig-plan --max-slowdown ten --workload a:1:0.1"), "--max-slowdown");
  ExpectOneLineError(RunKraken("mig-plan"), "no workloads");
  // The pooling analysis (analyze --prometheus) and the controller (annotate) check the
  // budget by the same rule and words as disagg and mig-plan, before they read Prometheus.
  for (const std::string& command :
       {std::string("analyze --prometheus http://127.0.0.1:1 --namespace ml"),
        std::string("annotate --prometheus http://127.0.0.1:1 --namespace ml --dry-run")}) {
    ExpectOneLineError(RunKraken(command + " --max-slowdown 1001"),
                       "max_slowdown (--max-slowdown) must be between 0 and 1000 (%), got 1001");
    ExpectOneLineError(RunKraken(command + " --max-slowdown -1"),
                       "max_slowdown (--max-slowdown) must be between 0 and 1000 (%), got -1");
    ExpectOneLineError(RunKraken(command + " --max-slowdown nan"), "--max-slowdown");
    ExpectOneLineError(RunKraken(command + " --max-slowdown ten"), "--max-slowdown");
  }
  std::string bad = testing::MakeTempDir("mig_bad") + "/bad.csv";
  std::ofstream(bad) << "name,memory_gib,sm_fraction\nx,lots,0.1\n";
  ExpectOneLineError(RunKraken("mig-plan " + bad), "bad.csv: line 2: memory_gib must be a number");
}

}  // namespace
}  // namespace kraken
