// End-to-end tests of `kraken report`: the self-contained page and its data document on real
// inputs, and the error contract (one line, exit 2, no file left behind).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

const std::string kResnet = "kineto/kineto_tb_plugin/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
const std::string kSmi = "nvidia-smi/capture__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt";

TEST(ReportCliTest, WritesOneSelfContainedPage) {
  std::string out = testing::MakeTempDir("report_cli_page") + "/resnet.html";
  RunResult r = RunKraken("report " + testing::DataPath(kResnet) + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = testing::ReadFileOrDie(out);
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(html.find("<title>kraken report: worker0.1623143089861.pt.trace.json.gz</title>"), std::string::npos);
  EXPECT_NE(html.find("<script type=\"application/json\" id=\"kraken-report-data\">{\"kind\":\"kraken-report\""),
            std::string::npos);
  // Nothing is fetched from elsewhere: no external script, stylesheet or URL to load.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  // Exactly one closing tag per script element: the inlined data and bundle cannot end them early.
  size_t closings = 0;
  for (size_t at = html.find("</script"); at != std::string::npos; at = html.find("</script", at + 1)) ++closings;
  EXPECT_EQ(closings, 2u);
}

TEST(ReportCliTest, DataDocumentHoldsAnalyzeDisaggAndPrice) {
  RunResult r = RunKraken("report --data-only --gpu-hour-cost 4 -o - " + testing::DataPath(kResnet));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult analyze = RunKraken("analyze --json " + testing::DataPath(kResnet));
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(doc["kind"].get_string().value(), "kraken-report");
  EXPECT_EQ(doc["gpu_hour_cost_usd"].get_double().value(), 4.0);
  // The embedded analysis is the document `kraken analyze --json` prints.
  std::string embedded = simdjson::minify(doc["analyze"].value());
  simdjson::dom::parser parser2;
  std::string expected = simdjson::minify(parser2.parse(analyze.out).value());
  EXPECT_EQ(embedded, expected);
  EXPECT_EQ(doc["analyze"]["kernels"]["count"].get_int64().value(), 8772);
  // disagg priced at the report's cost: ResNet-50 on a V100 scores 0.72 and stays dedicated.
  simdjson::dom::element w = doc["disagg"]["workloads"].get_array().value().at(0).value();
  EXPECT_NEAR(w["score"].get_double().value(), 0.72, 0.005);
  EXPECT_EQ(w["strategy"]["name"].get_string().value(), "dedicated");
  EXPECT_EQ(w["savings"]["price_per_gpu_hour"].get_double().value(), 4.0);
  // Tesla V100-DGXS-32GB as the trace reports it (deviceProperties totalGlobalMem).
  EXPECT_EQ(doc["device_memory_bytes"].get_array().value().at(0).get_int64().value(), 34084028416);
  // A trace has no sampled utilization; the allocator's series are in the memory panel.
  EXPECT_TRUE(doc["series"]["panels"].is_array());
}

std::string ReportBertExamplePath() {
  return testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/bert-infer.cupti.json.gz";
}

// The "disagg" document of `kraken report --data-only FLAGS` on the example, minified.
std::string ReportDisaggDocument(const std::string& flags) {
  RunResult r = RunKraken("report --data-only -o - " + flags + " " + ReportBertExamplePath());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (r.exit_code != 0 || parser.parse(r.out).get(doc) != simdjson::SUCCESS) return "";
  return simdjson::minify(doc["disagg"]);
}

// `kraken disagg --json FLAGS` on the example, minified.
std::string ReportCliDisaggJson(const std::string& flags) {
  RunResult r = RunKraken("disagg --json " + flags + " " + ReportBertExamplePath());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (r.exit_code != 0 || parser.parse(r.out).get(doc) != simdjson::SUCCESS) return "";
  return simdjson::minify(doc);
}

// The report's disagg section has `kraken disagg`'s --max-slowdown: BERT-base inference on
// an H100 would run ~66.5 % slower on 1g.20gb, so the default 10 % budget gives no slice and
// 1000 % gives 1g.20gb; either way the section is the document `kraken disagg` prints.
TEST(ReportCliTest, MaxSlowdownIsTheDisaggSectionsBudget) {
  std::string by_default = ReportDisaggDocument("");
  EXPECT_EQ(by_default, ReportCliDisaggJson(""));
  std::string wide = ReportDisaggDocument("--max-slowdown 1000");
  EXPECT_EQ(wide, ReportCliDisaggJson("--max-slowdown 1000"));
  simdjson::dom::parser parser;
  simdjson::dom::element narrow_strategy = parser.parse(by_default)["workloads"].at(0)["strategy"];
  EXPECT_NE(narrow_strategy["name"].get_string().value(), "MIG slice");
  EXPECT_EQ(narrow_strategy["mig_max_slowdown"].get_double().value(), 0.10);
  simdjson::dom::parser parser2;
  simdjson::dom::element wide_strategy = parser2.parse(wide)["workloads"].at(0)["strategy"];
  EXPECT_EQ(wide_strategy["name"].get_string().value(), "MIG slice");
  EXPECT_EQ(wide_strategy["mig_profile"].get_string().value(), "1g.20gb");
  EXPECT_EQ(wide_strategy["mig_max_slowdown"].get_double().value(), 10.0);
  // The budget's rule and message are `kraken disagg`'s.
  ExpectOneLineError(RunKraken("report -o - --max-slowdown 1001 " + ReportBertExamplePath()),
                     "max_slowdown (--max-slowdown) must be between 0 and 1000 (%), got 1001");
}

// --gpu-hour-cost prices the disagg section as --price does, with its rule: $0 is a price.
TEST(ReportCliTest, ZeroGpuHourCostPricesTheSavingsAtZero) {
  std::string free = ReportDisaggDocument("--gpu-hour-cost 0 --max-slowdown 1000");
  EXPECT_EQ(free, ReportCliDisaggJson("--price 0 --max-slowdown 1000"));
  simdjson::dom::parser parser;
  simdjson::dom::element savings = parser.parse(free)["workloads"].at(0)["savings"];
  EXPECT_EQ(savings["price_per_gpu_hour"].get_double().value(), 0.0);
  EXPECT_EQ(savings["per_month_hi"].get_double().value(), 0.0);
  EXPECT_GT(savings["gpu_hours_freed_per_hour_hi"].get_double().value(), 0.0);
}

TEST(ReportCliTest, SampledCaptureGivesUtilizationMemoryPowerAndPciePanels) {
  RunResult r = RunKraken("report --data-only -o - " + testing::DataPath(kSmi));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  std::vector<std::string> ids;
  simdjson::dom::array panels = doc["series"]["panels"].get_array().value();
  for (simdjson::dom::element panel : panels)
    ids.emplace_back(panel["id"].get_string().value());
  EXPECT_EQ(ids, (std::vector<std::string>{"utilization", "memory", "power", "pcie"}));  // -q has PCIe TX/RX
  EXPECT_EQ(doc["gpu_hour_cost_usd"].get_double().value(), 2.5);
}

TEST(ReportCliTest, ReportsAStoredProfileById) {
  std::string db = testing::MakeTempDir("report_cli_store") + "/profiles.db";
  RunResult imported = RunKraken("import --db " + db + " " + testing::DataPath(kResnet));
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  RunResult r = RunKraken("report --data-only --title ResNet -o - --db " + db + " 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(doc["title"].get_string().value(), "ResNet");
  EXPECT_EQ(doc["inputs"].get_array().value().at(0).get_string().value(), "1");
  // The stored profile gives the same analysis as the file.
  EXPECT_EQ(doc["analyze"]["kernels"]["count"].get_int64().value(), 8772);
  RunResult missing = RunKraken("report -o - --db " + db + " 99");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no profile 99"), std::string::npos) << missing.err;
}

TEST(ReportCliTest, ErrorsAreOneLineAndLeaveNoFile) {
  std::string dir = testing::MakeTempDir("report_cli_errors");
  std::string out = dir + "/never.html";
  for (const std::string& args :
       {"report " + dir + "/missing.json -o " + out,
        "report --gpu-hour-cost -1 " + testing::DataPath(kResnet) + " -o " + out,
        "report --device no-such-gpu " + testing::DataPath(kResnet) + " -o " + out,
        "report --max-slowdown 1001 " + testing::DataPath(kResnet) + " -o " + out,
        "report --max-slowdown -1 " + testing::DataPath(kResnet) + " -o " + out}) {
    RunResult r = RunKraken(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("kraken: error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }
  // No temp file was left behind either.
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

}  // namespace
}  // namespace kraken
