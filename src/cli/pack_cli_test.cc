// End-to-end tests of `kraken pack` on the real openb trace: the JSON keys, the table,
// the explain view and the one-line errors.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

std::string Inputs(const std::string& pods = "openb_pod_list_default.csv") {
  return "--nodes " + testing::DataPath("alibaba-gpu-v2023/openb_node_list_gpu_node.csv") + " --pods " +
         testing::DataPath("alibaba-gpu-v2023/" + pods);
}

TEST(PackCliTest, JsonHasTheCurvePerPolicy) {
  RunResult r = RunKraken("pack " + Inputs() + " --policy FGD,kraken --seeds 42-43 --tune 1.3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out.substr(0, 200);
  int64_t gpus = 0;
  ASSERT_EQ(doc["gpus"].get_int64().get(gpus), simdjson::SUCCESS);
  EXPECT_EQ(gpus, 6212);
  double frag = 0;
  ASSERT_EQ(doc["empty_cluster_frag_pct"].get_double().get(frag), simdjson::SUCCESS);
  EXPECT_NEAR(frag, 13.94, 0.01);
  simdjson::dom::array policies;
  ASSERT_EQ(doc["policies"].get_array().get(policies), simdjson::SUCCESS);
  ASSERT_EQ(policies.size(), 2u);
  std::vector<std::string> names;
  for (simdjson::dom::element policy : policies) {
    std::string_view name;
    ASSERT_EQ(policy["policy"].get_string().get(name), simdjson::SUCCESS);
    names.emplace_back(name);
    double at100 = 0;
    ASSERT_EQ(policy["unallocated_pct_at_100"].get_double().get(at100), simdjson::SUCCESS);
    EXPECT_GT(at100, 2.0);
    EXPECT_LT(at100, 6.0);
    simdjson::dom::array curve;
    ASSERT_EQ(policy["curve"].get_array().get(curve), simdjson::SUCCESS);
    ASSERT_EQ(curve.size(), 131u);  // arrived 0..130 %
    int64_t x = -1;
    double unallocated = 0, frag_pct = 0;
    simdjson::dom::element point = curve.at(100);
    ASSERT_EQ(point["arrived_pct"].get_int64().get(x), simdjson::SUCCESS);
    ASSERT_EQ(point["unallocated_pct"].get_double().get(unallocated), simdjson::SUCCESS);
    ASSERT_EQ(point["frag_pct"].get_double().get(frag_pct), simdjson::SUCCESS);
    EXPECT_EQ(x, 100);
    EXPECT_DOUBLE_EQ(unallocated, at100);
    EXPECT_GT(frag_pct, 0);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"FGD", "Kraken"}));
}

TEST(PackCliTest, TableHasArrivedRowsAndOneColumnPerPolicy) {
  RunResult r = RunKraken("pack " + Inputs("openb_pod_list_multigpu20.csv") + " --policy BestFit,FGD --seeds 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("arrived %  BestFit    FGD"), std::string::npos) << r.out;
  for (const char* row : {"\n         75", "\n        100", "\n        130"})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  EXPECT_NE(r.out.find("At arrived = 100%"), std::string::npos);
  EXPECT_NE(r.out.find("Pods:    8324"), std::string::npos);
}

TEST(PackCliTest, ExplainShowsCandidatesPartsAndAssumptions) {
  RunResult r = RunKraken("pack " + Inputs() + " --policy FGD --seeds 42 --explain-pod 10 --explain-top 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS);
  simdjson::dom::array placements, candidates, parts, assumptions;
  ASSERT_EQ(doc["policies"].at(0)["placements"].get_array().get(placements), simdjson::SUCCESS);
  ASSERT_EQ(placements.size(), 1u);
  int64_t position = 0;
  ASSERT_EQ(placements.at(0)["position"].get_int64().get(position), simdjson::SUCCESS);
  EXPECT_EQ(position, 10);
  ASSERT_EQ(placements.at(0)["candidates"].get_array().get(candidates), simdjson::SUCCESS);
  ASSERT_EQ(candidates.size(), 3u);
  ASSERT_EQ(candidates.at(0)["parts"].get_array().get(parts), simdjson::SUCCESS);
  std::string_view first;
  ASSERT_EQ(parts.at(0)["name"].get_string().get(first), simdjson::SUCCESS);
  EXPECT_EQ(first, "fragment before");
  ASSERT_EQ(doc["protocol_assumptions"].get_array().get(assumptions), simdjson::SUCCESS);
  EXPECT_GE(assumptions.size(), 5u);

  RunResult text = RunKraken("pack " + Inputs() + " --policy Kraken --explain --explain-top 1");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Pod #0: "), std::string::npos);
  EXPECT_NE(text.out.find("Pod #2: "), std::string::npos);
  EXPECT_NE(text.out.find("stranded GPU milli before"), std::string::npos);
  EXPECT_NE(text.out.find("Assumptions of the protocol:"), std::string::npos);
}

TEST(PackCliTest, BadArgumentsAndFilesGiveOneLineErrors) {
  ExpectOneLineError(RunKraken("pack " + Inputs() + " --policy Tetris"), "unknown policy 'Tetris'");
  ExpectOneLineError(RunKraken("pack " + Inputs() + " --seeds 9-3"), "--seeds: '9-3' is not a range");
  ExpectOneLineError(RunKraken("pack " + Inputs() + " --seeds 42 --explain-pod 20000"),
                     "--explain-pod 20000: seed 42 submits pods 0..10769");
  std::string dir = testing::MakeTempDir("pack_cli_bad");
  std::ofstream(dir + "/pods.csv") << "name,cpu_milli,num_gpu\np,1000,0\n";
  ExpectOneLineError(RunKraken("pack --nodes " + testing::DataPath("alibaba-gpu-v2023/openb_node_list_gpu_node.csv") +
                               " --pods " + dir + "/pods.csv"),
                     "pods.csv: line 1: missing column 'memory_mib'");
}

}  // namespace
}  // namespace kraken
