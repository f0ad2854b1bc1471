#include "base/duration.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

TEST(DurationTest, ParsesUnitsFractionsAndSums) {
  EXPECT_EQ(ParseDurationNs("100ms"), 100'000'000);
  EXPECT_EQ(ParseDurationNs("10s"), 10'000'000'000);
  EXPECT_EQ(ParseDurationNs("1.5s"), 1'500'000'000);
  EXPECT_EQ(ParseDurationNs("1m30s"), 90'000'000'000);
  EXPECT_EQ(ParseDurationNs("7d"), 7 * 86'400'000'000'000);
  EXPECT_EQ(ParseDurationNs("250us"), 250'000);
  EXPECT_EQ(ParseDurationNs("0"), 0);
}

TEST(DurationTest, RefusesWhatIsNotADuration) {
  for (const char* bad : {"", "10", "s", "10 s", "-1s", "10x", "1..5s", "100 parsecs", "1e3s", "999999999999d"})
    EXPECT_FALSE(ParseDurationNs(bad).has_value()) << bad;
}

TEST(DurationTest, FormatsTheShortestExactSpelling) {
  EXPECT_EQ(FormatDurationNs(100'000'000), "100ms");
  EXPECT_EQ(FormatDurationNs(5'400'000'000'000), "1h30m");
  EXPECT_EQ(FormatDurationNs(7 * 86'400'000'000'000), "7d");
  EXPECT_EQ(FormatDurationNs(1'500'000'000), "1s500ms");
  EXPECT_EQ(FormatDurationNs(0), "0");
  for (int64_t ns : {int64_t{1}, int64_t{1'234'567}, int64_t{86'400'000'000'001}})
    EXPECT_EQ(ParseDurationNs(FormatDurationNs(ns)), ns);
}

}  // namespace
}  // namespace kraken
