#include <gtest/gtest.h>

#include "report/temporal_output.h"

namespace kraken {
namespace {

constexpr int64_t kMinute = 60'000'000'000;
constexpr int64_t kHour = 60 * kMinute;
constexpr int64_t kDay = 24 * kHour;

TEST(TemporalFormat, Spans) {
  EXPECT_EQ(FormatAxisSpan(57'000'000'000, SampleAxis::kTimeNs), "57s");
  EXPECT_EQ(FormatAxisSpan(90'000'000'000, SampleAxis::kTimeNs), "1m30s");
  EXPECT_EQ(FormatAxisSpan(3 * kHour + 24 * kMinute, SampleAxis::kTimeNs), "3h24m");
  EXPECT_EQ(FormatAxisSpan(kDay + 5 * kMinute, SampleAxis::kTimeNs), "1d");  // two adjacent units at most
  EXPECT_EQ(FormatAxisSpan(7 * kDay, SampleAxis::kTimeNs), "7d");
  EXPECT_EQ(FormatAxisSpan(120, SampleAxis::kIteration), "120 it");
}

TEST(TemporalFormat, PhasesAndTimes) {
  EXPECT_EQ(FormatPhase(14 * kHour + 30 * kMinute, kDay, SampleAxis::kTimeNs), "14:30");
  EXPECT_EQ(FormatPhase(4 * kDay + 9 * kHour, 7 * kDay, SampleAxis::kTimeNs), "Mon 09:00");  // epoch day 0 is a Thursday
  EXPECT_EQ(FormatPhase(12 * kMinute, 57 * kMinute, SampleAxis::kTimeNs), "+12m");
  EXPECT_EQ(FormatPhase(30, 60, SampleAxis::kIteration), "+30 it");
  EXPECT_EQ(FormatAxisTime(1'506'988'800'000'000'000, SampleAxis::kTimeNs), "2017-10-03 00:00:00");
  EXPECT_EQ(FormatAxisTime(1'590'969'540'000'000'000, SampleAxis::kTimeNs), "2020-05-31 23:59:00");
  EXPECT_EQ(FormatAxisTime(951'782'400'000'000'000, SampleAxis::kTimeNs), "2000-02-29 00:00:00");
  EXPECT_EQ(FormatAxisTime(42, SampleAxis::kIteration), "iteration 42");
}

}  // namespace
}  // namespace kraken
