// Forecast values and prediction intervals (forecast_path.h) on real series of the shared
// data: Philly's per-minute active servers and a Helios virtual cluster's job counts.
#include "analysis/temporal/forecast_path.h"

#include <gtest/gtest.h>

#include "analysis/temporal/temporal_analysis.h"
#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::temporal {
namespace {

TemporalReport AnalyzeForPath(const std::string& relative, const std::string& field) {
  TemporalOptions options;
  options.horizons = {*ParseHorizon("24h")};
  auto profiles = ImportFile(BuiltinImporters(), kraken::testing::DataPath(relative));
  EXPECT_TRUE(profiles.ok()) << profiles.status().message();
  if (profiles.ok())
    for (const Profile& p : *profiles)
      for (const Series& s : p.series)
        if (s.source_name == field) return AnalyzeTemporal(s, options);
  ADD_FAILURE() << "no series " << field << " in " << relative;
  return {};
}

void ExpectOrderedIntervals(const ForecastPath& path) {
  for (const ForecastPoint& p : path.points) {
    EXPECT_LE(p.lo95, p.lo80) << p.steps;
    EXPECT_LE(p.lo80, p.hi80) << p.steps;
    EXPECT_LE(p.hi80, p.hi95) << p.steps;
    EXPECT_GE(p.residuals, 100u) << p.steps;
  }
}

TEST(ForecastPath, PhillyActiveServersOneDayAhead) {
  TemporalReport report = AnalyzeForPath("helios/philly_node_sequence.csv.gz", "active");
  ASSERT_EQ(report.forecast.horizons.size(), 1u);
  const HorizonEvaluation& h = report.forecast.horizons[0];
  ASSERT_TRUE(h.evaluated) << h.reason;
  ForecastPath path = ComputeForecastPath(report.grid, h.steps, h.params);
  // 24 h of 15-minute strides, the last at exactly the horizon.
  ASSERT_EQ(path.points.size(), 96u);
  EXPECT_EQ(path.points.back().steps, h.steps);
  EXPECT_EQ(path.points.back().at, report.grid.TimeAt(report.grid.size() - 1) + static_cast<int64_t>(h.steps) *
                                                                                      report.grid.step);
  ExpectOrderedIntervals(path);
  // The local mean the back-test chose: 221.4 active servers, the 80 % interval about
  // +-25 servers an hour out and wider a day out.
  EXPECT_NEAR(path.points[3].value, 221.4, 1e-9);
  EXPECT_NEAR(path.points[3].lo80, 196.6, 1e-6);
  EXPECT_NEAR(path.points[3].hi80, 242.6, 1e-6);
  EXPECT_GT(path.points.back().hi95 - path.points.back().lo95, path.points[0].hi95 - path.points[0].lo95);
  // Held-out coverage: the intervals fitted on the first 75 % held at least their nominal
  // share on the last 25 % (measured 88.3 % and 98.3 % of 38,112 targets).
  EXPECT_EQ(path.coverage_targets, 38112u);
  EXPECT_GE(path.coverage80, 0.80);
  EXPECT_LE(path.coverage80, 0.95);
  EXPECT_GE(path.coverage95, 0.95);
}

TEST(ForecastPath, HeliosVirtualClusterJobsAndTooShortSeries) {
  TemporalReport report =
      AnalyzeForPath("helios/earth_vc_sequences/vc3sl_cluster_sequence_vc.csv.gz", "total_job_num");
  const HorizonEvaluation& h = report.forecast.horizons[0];
  ASSERT_TRUE(h.evaluated) << h.reason;
  ForecastPath path = ComputeForecastPath(report.grid, h.steps, h.params);
  ASSERT_EQ(path.points.size(), 96u);
  ExpectOrderedIntervals(path);
  EXPECT_EQ(path.coverage_targets, 38304u);
  EXPECT_GE(path.coverage80, 0.90);  // measured 93.7 %: the tail is calmer than the head
  EXPECT_GE(path.coverage95, 0.99);
  // A two-point grid has no errors to build an interval from.
  RegularGrid tiny;
  tiny.step = 60;
  tiny.values = {1, 2};
  tiny.observed = {1, 1};
  EXPECT_TRUE(ComputeForecastPath(tiny, 5, ForecastParams{}).points.empty());
}

}  // namespace
}  // namespace kraken::temporal
