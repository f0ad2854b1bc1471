// `kraken temporal --forecast H` end to end on Philly's per-minute active servers.
#include <gtest/gtest.h>
#include <simdjson.h>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

TEST(TemporalForecastCli, ValuesWithIntervalsTextAndJson) {
  std::string philly = testing::DataPath("helios/philly_node_sequence.csv.gz");
  RunResult text = RunKraken("temporal " + philly + " --forecast 24h");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("philly_node_sequence/active"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("back-test MASE 0.905 at 24h"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("      1h  2017-12-15 19:42:00   221.400  196.600   242.600"), std::string::npos)
      << text.out;
  RunResult json = RunKraken("temporal " + philly + " --forecast 6h --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  simdjson::dom::element s = parser.parse(json.out)["series"].at(0);
  simdjson::dom::array points = s["points"].get_array();
  ASSERT_EQ(points.size(), 90u);  // 360 one-minute steps, strided by 4 to at most 96 points
  EXPECT_EQ(int64_t(points.at(points.size() - 1)["lead_steps"]), 360);
  EXPECT_GE(double(s["coverage"]["interval80"]), 0.8);
}

TEST(TemporalForecastCli, BadHorizonAndTooShortSeries) {
  std::string philly = testing::DataPath("helios/philly_node_sequence.csv.gz");
  ExpectOneLineError(RunKraken("temporal " + philly + " --forecast soon"), "--forecast expects one horizon");
  RunResult r = RunKraken("temporal " + testing::DataPath("alibaba-genai-v2026/qps.csv.gz") +
                          " --series 0 --forecast 6h");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no forecast: series too short for this horizon"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kraken
