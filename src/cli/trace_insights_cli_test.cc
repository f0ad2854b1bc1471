// End to end through the kraken binary: analyze on a multi-rank archive (insights,
// stragglers, the same bytes on one thread and on several) and `kraken diff`.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

TEST(AnalyzeInsightsCli, DlrmRanksSameBytesOnOneOrManyThreads) {
  const std::string tar = testing::DataPath("kineto/param/dlrm_kineto.tar.gz");
  RunResult serial = RunKraken("analyze --json " + tar, "KRAKEN_THREADS=1 ");
  RunResult parallel = RunKraken("analyze --json " + tar, "KRAKEN_THREADS=4 ");
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
  EXPECT_EQ(serial.out, parallel.out);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(parallel.out);
  EXPECT_EQ(int64_t(doc["stragglers"]["straggler_rank"]), 7);
  EXPECT_EQ(int64_t(doc["stragglers"]["collectives_matched"]), 8);
  EXPECT_EQ(int64_t(doc["stragglers"]["since_step"]), 10);
  simdjson::dom::array ranks = doc["ranks"];
  ASSERT_EQ(ranks.size(), 8u);
  for (simdjson::dom::element rank : ranks) {
    simdjson::dom::element path = rank["critical_path"];
    double sum = 0;
    for (auto [kind, value] : simdjson::dom::object(path["by_kind"])) sum += double(value["us"]);
    EXPECT_NEAR(sum, double(path["total_us"]), 1e-6);
    EXPECT_EQ(simdjson::dom::array(path["windows"]).size(), 1u);
    EXPECT_TRUE(rank["kernel_sequences"].is_array());
  }
}

TEST(AnalyzeInsightsCli, TextNamesTheStragglerAndTheCriticalPath) {
  RunResult r = RunKraken("analyze " + testing::DataPath("kineto/param/dlrm_kineto.tar.gz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Straggler: rank 7 arrived last at 5 of 8 collectives"), std::string::npos);
  EXPECT_NE(r.out.find("Critical path (1 window(s)"), std::string::npos);
}

TEST(DiffCli, JsonKeysAndRankedChanges) {
  const std::string a = testing::DataPath("kineto/hta/trace_diff/control/control.json.gz");
  const std::string b = testing::DataPath("kineto/hta/trace_diff/test/test.json.gz");
  RunResult r = RunKraken("diff --json --top 5 " + a + " " + b);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  EXPECT_EQ(std::string_view(doc["kind"]), "kraken-diff");
  EXPECT_NEAR(double(doc["step"]["a_us"]), 77490.833, 0.001);
  EXPECT_NEAR(double(doc["step"]["b_us"]), 124066.833, 0.001);
  simdjson::dom::array ranked = doc["ranked"];
  ASSERT_EQ(ranked.size(), 5u);
  EXPECT_EQ(std::string_view(ranked.at(0)["name"]), "aten::item");
  for (const char* key : {"timeline", "kernel_classes", "kernels", "operators", "added_kernels", "removed_kernels"})
    EXPECT_TRUE(doc[key].is_array()) << key;
  RunResult text = RunKraken("diff " + a + " " + b);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Step time: 77.491 ms -> 124.067 ms (+46.576 ms, +60.1%)"), std::string::npos) << text.out;
}

// The page's data is the JSON document (what the browser test checks the page draws,
// kraken_insights_browser_test, which runs in the Release pass only).
TEST(DiffCli, HtmlPageEmbedsTheJsonDocument) {
  const std::string a = testing::DataPath("kineto/hta/trace_diff/control/control.json.gz");
  const std::string b = testing::DataPath("kineto/hta/trace_diff/test/test.json.gz");
  const std::string html = testing::MakeTempDir("diff_html") + "/diff.html";
  RunResult page = RunKraken("diff --top 8 --html " + html + " -o /dev/null " + a + " " + b);
  ASSERT_EQ(page.exit_code, 0) << page.err;
  RunResult json = RunKraken("diff --json --top 8 " + a + " " + b);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  std::string text = testing::ReadFileOrDie(html);
  const std::string open = "<script type=\"application/json\" id=\"kraken-report-data\">";
  size_t start = text.find(open);
  ASSERT_NE(start, std::string::npos);
  start += open.size();
  size_t end = text.find("</script>", start);
  ASSERT_NE(end, std::string::npos);
  simdjson::dom::parser page_parser, json_parser;
  simdjson::dom::element embedded = page_parser.parse(text.substr(start, end - start));
  EXPECT_EQ(std::string_view(embedded["kind"]), "kraken-diff-report");
  simdjson::dom::element doc = json_parser.parse(json.out);
  EXPECT_EQ(simdjson::minify(embedded["diff"]), simdjson::minify(doc));
  EXPECT_EQ(simdjson::dom::array(doc["ranked"]).size(), 8u);
}

TEST(DiffCli, BadInputIsOneLineError) {
  const std::string b = testing::DataPath("kineto/hta/trace_compare/test/test.json.gz");
  ExpectOneLineError(RunKraken("diff /nonexistent/a.json " + b), "/nonexistent/a.json");
  ExpectOneLineError(RunKraken("diff " + testing::DataPath("kineto/hta/rank_non_gpu/rank_non_gpu.json.gz") + " " + b),
                     "no profile with a GPU timeline");
  ExpectOneLineError(RunKraken("diff --top 0 " + b + " " + b), "--top");
}

// The WorkloadProfiler's NVML profile of ResNet-50 training recorded on an H100
// (examples/nvidia-h100-80gb-hbm3): step marks and samples, no kernel timeline. The text
// shows the steps and the samples, and no per-step kernel table over no rows.
TEST(AnalyzeInsightsCli, NvmlOnlyProfileHasNoEmptyKernelTable) {
  RunResult r = RunKraken("analyze " + testing::SourceDir() + "/examples/nvidia-h100-80gb-hbm3/resnet50-train.profile.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Step time (20 steps)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("process_sm_util_pct"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Kernels per step"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kraken
