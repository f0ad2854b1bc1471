#include "store/sample_codec.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

namespace kraken::store {
namespace {

std::vector<Sample> RoundTrip(const std::vector<Sample>& samples, EncodedBlock* block_out = nullptr) {
  EncodedBlock block = EncodeSamples(samples);
  std::vector<Sample> decoded;
  Status status = DecodeSamples(block.times, block.values, block.count, &decoded);
  EXPECT_TRUE(status.ok()) << status.message();
  if (block_out != nullptr) *block_out = block;
  return decoded;
}

void ExpectSameBits(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].time_ns, b[i].time_ns) << i;
    EXPECT_EQ(std::bit_cast<uint64_t>(a[i].value), std::bit_cast<uint64_t>(b[i].value)) << i;
  }
}

TEST(SampleCodecTest, SteadyGaugeAtTenHertzPacksIntoAFewBytesPerSample) {
  // 512 samples every 100 ms with 1 ms jitter, utilization in whole percent.
  std::vector<Sample> samples;
  std::mt19937_64 rng(7);
  TimeNs t = 1'700'000'000'000'000'000;
  for (int i = 0; i < 512; ++i) {
    t += 100'000'000 + static_cast<TimeNs>(rng() % 1'000'000);
    samples.push_back({t, static_cast<double>(rng() % 101)});
  }
  EncodedBlock block;
  ExpectSameBits(RoundTrip(samples, &block), samples);
  EXPECT_EQ(block.count, 512);
  // Jittered deltas of deltas take 3 bytes, whole-percent values 2-3: well under the 16
  // bytes of a raw (int64, double) pair.
  EXPECT_LE(block.times.size(), 512u * 3 + 16);
  EXPECT_LE(block.values.size(), 512u * 4);
  EXPECT_EQ(block.min_time_ns, samples.front().time_ns);
  EXPECT_EQ(block.max_time_ns, samples.back().time_ns);
}

TEST(SampleCodecTest, ConstantValueAndStrictPeriodCostTwoBytesPerSample) {
  std::vector<Sample> samples;
  for (int i = 0; i < 512; ++i) samples.push_back({1'000'000'000LL + i * 100'000'000LL, 81559.0});
  EncodedBlock block;
  ExpectSameBits(RoundTrip(samples, &block), samples);
  // After the first two samples every delta of deltas and every XOR is zero: one byte each.
  // t0 = 1e9 zigzags to 2e9 (31 bits: 5 varint bytes), the first delta 1e8 to 2e8 (4).
  EXPECT_EQ(block.times.size(), 510u + 5 + 4);
  // 81559.0 is 0x40F3E97000000000: a header byte and 4 bytes, then 511 zero XORs.
  EXPECT_EQ(block.values.size(), 511u + 1 + 4);
  EXPECT_EQ(block.min_value, 81559.0);
  EXPECT_EQ(block.max_value, 81559.0);
  EXPECT_EQ(block.sum_value, 81559.0 * 512);
}

TEST(SampleCodecTest, ExtremesRoundTripExactly) {
  constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min(), kMax = std::numeric_limits<TimeNs>::max();
  std::vector<Sample> samples = {
      {kMax, std::numeric_limits<double>::quiet_NaN()}, {kMin, -0.0}, {0, std::numeric_limits<double>::infinity()},
      {kMax, -std::numeric_limits<double>::denorm_min()}, {-5, 1e308}, {-5, 3.14159}, {kMin, 0.1}};
  EncodedBlock block;
  ExpectSameBits(RoundTrip(samples, &block), samples);
  EXPECT_EQ(block.min_time_ns, kMin);
  EXPECT_EQ(block.max_time_ns, kMax);
  EXPECT_EQ(block.min_value, -std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(block.max_value, std::numeric_limits<double>::infinity());
}

TEST(SampleCodecTest, DamagedBlocksAreErrorsNotCrashes) {
  std::vector<Sample> samples;
  for (int i = 0; i < 100; ++i) samples.push_back({i * 7919LL, i * 0.5});
  EncodedBlock block = EncodeSamples(samples);
  std::vector<Sample> out;
  EXPECT_FALSE(DecodeSamples(block.times, block.values, 101, &out).ok());
  out.clear();
  EXPECT_FALSE(DecodeSamples(block.times, block.values, 99, &out).ok());  // bytes left over
  out.clear();
  EXPECT_FALSE(DecodeSamples(block.times.substr(0, 50), block.values, 100, &out).ok());
  out.clear();
  EXPECT_FALSE(DecodeSamples(block.times, std::string(100, '\x9f'), 100, &out).ok());  // lead 9 + trail 15
  out.clear();
  EXPECT_FALSE(DecodeSamples(std::string(20, '\xff'), block.values, 100, &out).ok());  // endless varint
  // Every truncation of a valid block fails cleanly.
  for (size_t cut = 0; cut < block.values.size(); ++cut) {
    out.clear();
    EXPECT_FALSE(DecodeSamples(block.times, block.values.substr(0, cut), 100, &out).ok()) << cut;
  }
}

}  // namespace
}  // namespace kraken::store
