#include "analysis/temporal/forecast.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/temporal/synthetic_series.h"

namespace kraken::temporal {
namespace {

using testing::MakeGrid;
using testing::Noise;

//                                 0  1  2  3  4  5  6  7  8  9
const std::vector<double> kValues = {1, 2, 3, 4, 2, 4, 6, 8, 3, 5};

TEST(Forecast, BaselinesByHand) {
  ForecastSeries y(kValues);
  ForecastParams naive;
  EXPECT_EQ(Forecast(y, 9, 3, naive), 5);
  ForecastParams snaive;
  snaive.method = ForecastMethod::kSeasonalNaive;
  snaive.period = 4;
  EXPECT_EQ(Forecast(y, 9, 1, snaive), 6);  // y[9 + 1 - 4]
  EXPECT_EQ(Forecast(y, 9, 3, snaive), 3);  // y[9 + 3 - 4]
  EXPECT_EQ(Forecast(y, 9, 5, snaive), 6);  // two cycles back: y[9 + 5 - 8]
  EXPECT_TRUE(CanForecast(3, 1, snaive));
  EXPECT_FALSE(CanForecast(2, 1, snaive));
}

TEST(Forecast, SeasonalMeanByHand) {
  ForecastSeries y(kValues);
  ForecastParams p;
  p.method = ForecastMethod::kSeasonalMean;
  p.period = 4;
  p.cycles = 2;
  p.level_window = 1;
  p.beta = 0.5;
  // base = mean(y6, y2) = 4.5; dev = y9 - mean(y5, y1) = 5 - 3 = 2; 4.5 + 0.5 * 2.
  EXPECT_DOUBLE_EQ(Forecast(y, 9, 1, p), 5.5);
  p.smooth = 1;
  // base = mean(y5..y7, y1..y3) = 27 / 6 = 4.5, the same here.
  EXPECT_DOUBLE_EQ(Forecast(y, 9, 1, p), 5.5);
  p.robust = true;
  // base = median{4, 6, 8, 2, 3, 4} = 4; dev = 5 - median{4, 2} = 2.
  EXPECT_DOUBLE_EQ(Forecast(y, 9, 1, p), 5.0);
  EXPECT_TRUE(CanForecast(8, 1, p));   // y[8 + 1 - 8 - 1] = y[0] is the oldest value used
  EXPECT_FALSE(CanForecast(7, 1, p));
}

TEST(Forecast, LocalMeanByHand) {
  ForecastSeries y(kValues);
  ForecastParams p;
  p.method = ForecastMethod::kLocalMean;
  p.mean_window = 4;
  p.level_window = 2;
  p.beta = 0.5;
  // base = mean(y6..y9) = 5.5; dev = mean(y8, y9) - 5.5 = -1.5.
  EXPECT_DOUBLE_EQ(Forecast(y, 9, 7, p), 4.75);
  p.robust = true;  // median{6, 8, 3, 5} = 5.5, median{3, 5} = 4: the same
  EXPECT_DOUBLE_EQ(Forecast(y, 9, 7, p), 4.75);
  EXPECT_TRUE(CanForecast(3, 1, p));
  EXPECT_FALSE(CanForecast(2, 1, p));
}

TEST(Forecast, AveragingCyclesBeatsTheSeasonalNaiveOnNoisyCycles) {
  Noise noise(11);
  std::vector<double> v;
  for (int i = 0; i < 40 * 24; ++i) v.push_back(10 * std::sin(2 * 3.141592653589793 * i / 24) + 2 * noise.Gaussian());
  ForecastEvaluation e = EvaluateForecasts(MakeGrid(v, 1), 24, {{"1", 1, ""}, {"24", 24, ""}});
  EXPECT_EQ(e.train_points, 720u);
  EXPECT_EQ(e.test_points, 240u);
  ASSERT_EQ(e.horizons.size(), 2u);
  for (const HorizonEvaluation& h : e.horizons) {
    ASSERT_TRUE(h.evaluated) << h.reason;
    EXPECT_TRUE(h.seasonal);
    EXPECT_EQ(h.params.method, ForecastMethod::kSeasonalMean);
    // Noise var 2 sigma^2 for the seasonal naive, about sigma^2 (1 + 1/K) for the mean of K
    // cycles: an MAE ratio near sqrt(9/16) = 0.75 with K = 8.
    EXPECT_LT(h.mase, 0.85);
    EXPECT_GT(h.mase, 0.6);
  }
  EXPECT_EQ(e.horizons[1].origins, 217u);  // origins 719..935, each with an observed target
}

TEST(Forecast, MeanReversionBeatsTheNaiveForecast) {
  Noise noise(12);
  std::vector<double> v;
  double x = 0;
  for (int i = 0; i < 4000; ++i) {
    x = 0.9 * x + noise.Gaussian();
    v.push_back(100 + x);
  }
  ForecastEvaluation e = EvaluateForecasts(MakeGrid(v, 1), 0, {{"20", 20, ""}});
  const HorizonEvaluation& h = e.horizons[0];
  ASSERT_TRUE(h.evaluated) << h.reason;
  EXPECT_FALSE(h.seasonal);
  EXPECT_EQ(h.params.method, ForecastMethod::kLocalMean);
  EXPECT_LT(h.params.beta, 0.4);  // 0.9^20 = 0.12: little of today's deviation survives
  EXPECT_LT(h.mase, 0.85);
  EXPECT_DOUBLE_EQ(h.mase, h.ratio_vs_naive);  // without a period the baseline is the naive one
}

TEST(Forecast, NothingBeatsTheNaiveForecastOnARandomWalk) {
  Noise noise(13);
  std::vector<double> v;
  double x = 0;
  for (int i = 0; i < 4000; ++i) v.push_back(x += noise.Gaussian());
  const HorizonEvaluation h = EvaluateForecasts(MakeGrid(v, 1), 0, {{"10", 10, ""}}).horizons[0];
  ASSERT_TRUE(h.evaluated);
  EXPECT_GT(h.mase, 0.95);
  EXPECT_LT(h.mase, 1.05);
}

TEST(Forecast, ReasonsWhenNothingCanBeScored) {
  std::vector<double> v(50, 1.0);
  v[10] = 3;
  ForecastEvaluation short_one = EvaluateForecasts(MakeGrid(v, 1), 0, {{"60", 60, ""}, {"0", 0, "no such step"}});
  EXPECT_FALSE(short_one.horizons[0].evaluated);
  EXPECT_NE(short_one.horizons[0].reason.find("series too short for this horizon"), std::string::npos);
  EXPECT_EQ(short_one.horizons[1].reason, "no such step");

  Noise noise(14);
  std::vector<double> w;
  for (int i = 0; i < 400; ++i) w.push_back(noise.Gaussian());
  RegularGrid g = MakeGrid(w, 1);
  for (size_t i = 300; i < 400; ++i) g.observed[i] = 0;  // the whole tail was interpolated
  const HorizonEvaluation h = EvaluateForecasts(g, 0, {{"5", 5, ""}}).horizons[0];
  EXPECT_FALSE(h.evaluated);
  EXPECT_EQ(h.reason, "no observed target in the held-out tail");
}

}  // namespace
}  // namespace kraken::temporal
