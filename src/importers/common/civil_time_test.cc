#include "importers/common/civil_time.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

TEST(CivilTime, DaysFromCivil) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(2020, 2, 29), 18321);
  EXPECT_FALSE(DaysFromCivil(2021, 2, 29));
  EXPECT_FALSE(DaysFromCivil(2021, 13, 1));
}

TEST(CivilTime, ParsesTraceTimestamps) {
  EXPECT_EQ(ParseCivilTimeNs("2017-10-03 00:00:00"), 1506988800'000'000'000);
  EXPECT_EQ(ParseCivilTimeNs("2020-05-31T23:59:00"), 1590969540'000'000'000);
  EXPECT_EQ(ParseCivilTimeNs("2020-04-01"), 1585699200'000'000'000);
  EXPECT_EQ(ParseCivilTimeNs("2020-04-01 00:00:01.25"), 1585699201'250'000'000);
  EXPECT_FALSE(ParseCivilTimeNs("2020-04-01 24:00:00"));
  EXPECT_FALSE(ParseCivilTimeNs("2020-04-01 00:00"));
  EXPECT_FALSE(ParseCivilTimeNs("01/04/2020"));
  EXPECT_FALSE(ParseCivilTimeNs("2020-04-01 00:00:00+02:00"));
  EXPECT_FALSE(ParseCivilTimeNs(""));
}

TEST(CivilTime, ParsesUnixSeconds) {
  EXPECT_EQ(ParseUnixSecondsNs("1662858720.0"), 1662858720'000'000'000);
  EXPECT_EQ(ParseUnixSecondsNs("1662858720"), 1662858720'000'000'000);
  EXPECT_EQ(ParseUnixSecondsNs("1662858720.123456789"), 1662858720'123'456'789);
  EXPECT_EQ(ParseUnixSecondsNs("1.5e3"), 1'500'000'000'000);
  EXPECT_FALSE(ParseUnixSecondsNs("-1"));
  EXPECT_FALSE(ParseUnixSecondsNs("nan"));
  EXPECT_FALSE(ParseUnixSecondsNs("1e20"));
  EXPECT_FALSE(ParseUnixSecondsNs("x"));
}

}  // namespace
}  // namespace kraken
