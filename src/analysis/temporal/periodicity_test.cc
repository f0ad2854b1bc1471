#include "analysis/temporal/periodicity.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/temporal/synthetic_series.h"

namespace kraken::temporal {
namespace {

using testing::kDayNs;
using testing::kHourNs;
using testing::kMinuteNs;
using testing::MakeGrid;
using testing::Noise;

constexpr double kPi = 3.141592653589793;

// Demand that peaks at 14:00 and bottoms out at 02:00, sampled every 10 minutes.
RegularGrid DailySine(int days, double noise_sd, uint64_t seed) {
  Noise noise(seed);
  std::vector<double> v;
  for (int i = 0; i < days * 144; ++i) {
    double hour = i / 6.0;
    v.push_back(50 + 20 * std::cos(2 * kPi * (hour - 14) / 24) + noise_sd * noise.Gaussian());
  }
  return MakeGrid(v, 10 * kMinuteNs);
}

TEST(Periodicity, AutocorrelationAndMovingAverageByHand) {
  std::vector<double> acf = Autocorrelation({1, 2, 3, 4}, 2);
  EXPECT_DOUBLE_EQ(acf[0], 1.0);
  // Centered values -1.5 -0.5 0.5 1.5, variance 5/4; mean products over the n - k pairs.
  EXPECT_DOUBLE_EQ(acf[1], (1.25 / 3) / 1.25);   // (0.75 - 0.25 + 0.75) / 3
  EXPECT_DOUBLE_EQ(acf[2], (-1.5 / 2) / 1.25);   // (-0.75 - 0.75) / 2
  std::vector<double> ma = CenteredMovingAverage({1, 2, 3, 4}, 3);
  EXPECT_DOUBLE_EQ(ma[0], 1.5);  // shortened at the ends
  EXPECT_DOUBLE_EQ(ma[1], 2.0);
  EXPECT_DOUBLE_EQ(ma[3], 3.5);
}

TEST(Periodicity, FindsADailyCycleItsPeakAndItsIdleHours) {
  PeriodicityResult r = DetectPeriodicity(DailySine(14, 5.0, 1));
  ASSERT_EQ(r.verdict, PeriodVerdict::kPeriodic) << r.reason;
  EXPECT_EQ(r.period, kDayNs);
  EXPECT_EQ(r.period_points, 144u);
  EXPECT_EQ(r.coarsen_factor, 1u);
  EXPECT_GT(r.acf, 0.8);
  EXPECT_GT(r.acf, r.band);
  EXPECT_GT(r.strength, 0.85);
  // The peak window (>= 80% of the range) is centered on 14:00: cos >= 0.6 for |d| <= 3.5 h.
  EXPECT_NEAR(static_cast<double>(r.peak.start + r.peak.length / 2) / kHourNs, 14.0, 0.5);
  EXPECT_NEAR(static_cast<double>(r.peak.length) / kHourNs, 7.0, 1.0);
  ASSERT_EQ(r.idle_windows.size(), 1u);
  // 02:00 +- 3.5 h wraps round midnight: the window starts the evening before.
  double idle_center = static_cast<double>(r.idle_windows[0].start + r.idle_windows[0].length / 2) / kHourNs;
  EXPECT_NEAR(std::fmod(idle_center, 24.0), 2.0, 0.5);
  EXPECT_GT(r.idle_windows[0].start, 20 * kHourNs);
  EXPECT_GE(r.idle_windows[0].recurrence, 0.9);
  EXPECT_EQ(r.complete_cycles, 14u);
  ASSERT_EQ(r.calendar_lags.size(), 1u);  // a day; a week would not repeat 3 times
  EXPECT_EQ(r.calendar_lags[0].lag, 144u);
}

TEST(Periodicity, PhasesCountFromTheEpochNotFromTheFirstSample) {
  RegularGrid g = DailySine(14, 2.0, 2);
  g.start = 18'000 * kDayNs + 6 * kHourNs;  // 2019-04-14 06:00: values[0] is then 06:00
  // Same values, shifted clock: the peak the data has at index 14 h now reads 20:00.
  PeriodicityResult r = DetectPeriodicity(g);
  ASSERT_EQ(r.verdict, PeriodVerdict::kPeriodic);
  double center = static_cast<double>(r.peak.start + r.peak.length / 2) / kHourNs;
  EXPECT_NEAR(std::fmod(center + 24.0, 24.0), 20.0, 0.5);
}

TEST(Periodicity, PrefersTheFundamentalOverItsMultiples) {
  // A daily cycle with a strong 12 h harmonic: 24 h, not 48 h, and not 12 h alone.
  Noise noise(3);
  std::vector<double> v;
  for (int i = 0; i < 21 * 48; ++i) {
    double hour = i / 2.0;
    v.push_back(10 * std::cos(2 * kPi * hour / 24) + 6 * std::cos(2 * kPi * hour / 12) + 2 * noise.Gaussian());
  }
  PeriodicityResult r = DetectPeriodicity(MakeGrid(v, 30 * kMinuteNs));
  ASSERT_EQ(r.verdict, PeriodVerdict::kPeriodic);
  EXPECT_EQ(r.period, kDayNs);
}

TEST(Periodicity, AWeekWhenWeekendsDiffer) {
  // Busy 09:00-17:00 on five days out of seven, idle otherwise: the week repeats, the
  // day only in part.
  Noise noise(4);
  std::vector<double> v;
  for (int i = 0; i < 28 * 24; ++i) {
    int day = i / 24, hour = i % 24;
    bool busy = day % 7 < 5 && hour >= 9 && hour < 17;
    v.push_back((busy ? 80.0 : 10.0) + 3 * noise.Gaussian());
  }
  PeriodicityResult r = DetectPeriodicity(MakeGrid(v, kHourNs));
  ASSERT_EQ(r.verdict, PeriodVerdict::kPeriodic) << r.reason;
  EXPECT_EQ(r.period, 7 * kDayNs);
  EXPECT_GT(r.strength, 0.9);
}

TEST(Periodicity, WhiteNoiseAndRandomWalksHaveNoPeriod) {
  Noise noise(5);
  std::vector<double> white, walk;
  double level = 0;
  for (int i = 0; i < 14 * 144; ++i) {
    white.push_back(noise.Gaussian());
    level += noise.Gaussian();
    walk.push_back(level);
  }
  PeriodicityResult w = DetectPeriodicity(MakeGrid(white, 10 * kMinuteNs));
  EXPECT_EQ(w.verdict, PeriodVerdict::kNoSignificantPeriod);
  EXPECT_NE(w.reason.find("no autocorrelation peak passes"), std::string::npos) << w.reason;
  PeriodicityResult rw = DetectPeriodicity(MakeGrid(walk, 10 * kMinuteNs));
  EXPECT_EQ(rw.verdict, PeriodVerdict::kNoSignificantPeriod);
}

TEST(Periodicity, APhaseThatDriftsIsNoPeriod) {
  // Bursts every 3 h +- 40 min, at random: neighbours correlate, the mean cycle is flat.
  Noise noise(6);
  std::vector<double> v(14 * 144, 0.0);
  double t = 0;
  while (true) {
    t += 18 + (noise.Uniform() - 0.5) * 8;  // steps of 10 min
    auto i = static_cast<size_t>(t);
    if (i + 3 >= v.size()) break;
    for (size_t k = i; k < i + 3; ++k) v[k] = 100;
  }
  PeriodicityResult r = DetectPeriodicity(MakeGrid(v, 10 * kMinuteNs));
  EXPECT_NE(r.verdict, PeriodVerdict::kPeriodic);
}

TEST(Periodicity, ConstantTooShortAndTooSparse) {
  EXPECT_EQ(DetectPeriodicity(MakeGrid(std::vector<double>(500, 3.0), kMinuteNs)).verdict, PeriodVerdict::kConstant);
  PeriodicityResult short_one = DetectPeriodicity(MakeGrid({1, 5, 2, 8, 3, 9, 1}, kMinuteNs));
  EXPECT_EQ(short_one.verdict, PeriodVerdict::kTooShort);
  EXPECT_NE(short_one.reason.find("too few points (7)"), std::string::npos);
  RegularGrid sparse = DailySine(7, 1.0, 7);
  for (size_t i = 0; i < sparse.size(); ++i) sparse.observed[i] = i % 3 == 0;
  sparse.filled_points = sparse.size() - (sparse.size() + 2) / 3;
  PeriodicityResult r = DetectPeriodicity(sparse);
  EXPECT_EQ(r.verdict, PeriodVerdict::kTooSparse);
  EXPECT_NE(r.reason.find("67% of the grid points have no sample"), std::string::npos) << r.reason;
}

TEST(Periodicity, LongSeriesAreAveragedOntoStepsThatDivideADay) {
  // 20 days per minute = 28800 points > 4096: 10-minute analysis steps (1440 / 10 whole).
  Noise noise(8);
  std::vector<double> v;
  for (int i = 0; i < 20 * 1440; ++i) v.push_back(std::sin(2 * kPi * i / 1440.0) + 0.5 * noise.Gaussian());
  PeriodicityResult r = DetectPeriodicity(MakeGrid(v, kMinuteNs));
  EXPECT_EQ(r.coarsen_factor, 8u);  // the smallest factor >= ceil(28800 / 4096) = 8 that divides 1440
  EXPECT_EQ(r.analysis_points, 3600u);
  ASSERT_EQ(r.verdict, PeriodVerdict::kPeriodic);
  EXPECT_EQ(r.period, kDayNs);
}

}  // namespace
}  // namespace kraken::temporal
