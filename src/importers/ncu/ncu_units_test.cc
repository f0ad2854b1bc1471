#include "importers/ncu/ncu_units.h"

#include <gtest/gtest.h>

namespace kraken::ncu {
namespace {

void ExpectUnit(std::string_view unit, double scale, std::string_view base) {
  auto normalized = NormalizeNcuUnit(unit);
  ASSERT_TRUE(normalized.has_value()) << unit;
  EXPECT_DOUBLE_EQ(normalized->scale, scale) << unit;
  EXPECT_EQ(normalized->base, base) << unit;
}

TEST(NcuUnitsTest, BytesScaleByPowersOfThousand) {
  ExpectUnit("byte", 1, "byte");
  ExpectUnit("Kbyte", 1e3, "byte");
  ExpectUnit("Mbyte", 1e6, "byte");
  ExpectUnit("Gbyte", 1e9, "byte");
  ExpectUnit("Tbyte", 1e12, "byte");
  ExpectUnit("Kbyte/block", 1e3, "byte/block");
}

TEST(NcuUnitsTest, TimesBecomeNanoseconds) {
  ExpectUnit("nsecond", 1, "ns");
  ExpectUnit("usecond", 1e3, "ns");
  ExpectUnit("msecond", 1e6, "ns");
  ExpectUnit("second", 1e9, "ns");
  ExpectUnit("ns", 1, "ns");
  ExpectUnit("us", 1e3, "ns");
  ExpectUnit("ms", 1e6, "ns");
  // Exactly 1000: no rounding creeps into "6.75 us".
  EXPECT_EQ(NormalizeNcuUnit("us")->scale, 1000.0);
}

TEST(NcuUnitsTest, FrequenciesAndCycleRatesBecomeHertz) {
  ExpectUnit("hz", 1, "hz");
  ExpectUnit("Khz", 1e3, "hz");
  ExpectUnit("Mhz", 1e6, "hz");
  ExpectUnit("Ghz", 1e9, "hz");
  ExpectUnit("GHz", 1e9, "hz");
  ExpectUnit("cycle/second", 1, "hz");
  ExpectUnit("cycle/nsecond", 1e9, "hz");
  ExpectUnit("cycle/usecond", 1e6, "hz");
}

TEST(NcuUnitsTest, RatesArePerSecond) {
  ExpectUnit("byte/second", 1, "byte/second");
  ExpectUnit("Gbyte/second", 1e9, "byte/second");
  ExpectUnit("Gbyte/s", 1e9, "byte/second");
  ExpectUnit("Tbyte/s", 1e12, "byte/second");
  ExpectUnit("Mbyte/usecond", 1e12, "byte/second");
  ExpectUnit("inst/nsecond", 1e9, "inst/second");
}

TEST(NcuUnitsTest, CountsAndRatiosKeepTheirWords) {
  ExpectUnit("", 1, "");
  ExpectUnit("%", 1, "%");
  ExpectUnit("inst", 1, "inst");
  ExpectUnit("Ginst", 1e9, "inst");
  ExpectUnit("inst/cycle", 1, "inst/cycle");
  ExpectUnit("byte/cycle", 1, "byte/cycle");
  ExpectUnit("warp/cycle", 1, "warp/cycle");
  ExpectUnit("cycle/issue", 1, "cycle/issue");
  ExpectUnit("register/thread", 1, "register/thread");
  ExpectUnit("sector", 1, "sector");
  ExpectUnit("cluster", 1, "cluster");
  ExpectUnit("block", 1, "block");
}

TEST(NcuUnitsTest, UnknownUnitsAreRejected) {
  EXPECT_FALSE(NormalizeNcuUnit("furlong").has_value());
  EXPECT_FALSE(NormalizeNcuUnit("Xbyte").has_value());
  EXPECT_FALSE(NormalizeNcuUnit("byte/second/cycle").has_value());
  EXPECT_FALSE(NormalizeNcuUnit("M%").has_value());
  EXPECT_FALSE(NormalizeNcuUnit("byte/%").has_value());
}

TEST(NcuUnitsTest, NumbersAsNcuPrintsThem) {
  EXPECT_EQ(ParseNcuNumber("5,323,503,232.00"), 5323503232.0);
  EXPECT_EQ(ParseNcuNumber("45,902,462,976"), 45902462976.0);
  EXPECT_EQ(ParseNcuNumber("13,485"), 13485.0);
  EXPECT_EQ(ParseNcuNumber("6.75"), 6.75);
  EXPECT_EQ(ParseNcuNumber(" 0 "), 0.0);
  EXPECT_FALSE(ParseNcuNumber("n/a").has_value());
  EXPECT_FALSE(ParseNcuNumber("").has_value());
  EXPECT_FALSE(ParseNcuNumber("PolicySpread").has_value());
  EXPECT_FALSE(ParseNcuNumber("32.00; 32.00; 4.00").has_value());
  EXPECT_FALSE(ParseNcuNumber("nan").has_value());
  EXPECT_FALSE(ParseNcuNumber("inf").has_value());
}

}  // namespace
}  // namespace kraken::ncu
