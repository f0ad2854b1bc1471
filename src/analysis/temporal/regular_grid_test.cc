#include "analysis/temporal/regular_grid.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kraken::temporal {
namespace {

std::vector<Sample> Samples(std::initializer_list<std::pair<int64_t, double>> points) {
  std::vector<Sample> out;
  for (auto [t, v] : points) out.push_back(Sample{t, v});
  return out;
}

TEST(RegularGrid, NativeStepIsTheMedianSpacing) {
  EXPECT_EQ(NativeStep(Samples({{0, 1}, {60, 1}, {120, 1}, {200, 1}, {260, 1}})), 60);
  EXPECT_EQ(NativeStep(Samples({{0, 1}, {0, 2}, {57, 1}})), 57);  // repeated times are not spacings
  EXPECT_EQ(NativeStep(Samples({{5, 1}})), 0);
}

TEST(RegularGrid, GapsAreInterpolatedAndMarked) {
  auto grid = ResampleToGrid(Samples({{0, 0}, {60, 10}, {120, 20}, {360, 60}, {420, 70}}));
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(grid->step, 60);
  ASSERT_EQ(grid->size(), 8u);
  EXPECT_EQ(grid->filled_points, 3u);
  EXPECT_EQ(grid->longest_gap_points, 3u);
  EXPECT_DOUBLE_EQ(grid->values[3], 30);
  EXPECT_DOUBLE_EQ(grid->values[5], 50);
  EXPECT_EQ(grid->observed[2], 1);
  EXPECT_EQ(grid->observed[4], 0);
  EXPECT_EQ(grid->TimeAt(7), 420);
}

TEST(RegularGrid, SamplesOnOnePointAreAveragedAndJitterRoundsToTheNearest) {
  GridOptions options;
  options.step = 60;
  auto grid = ResampleToGrid(Samples({{0, 1}, {10, 3}, {89, 5}, {91, 7}, {150, 9}}), options);
  ASSERT_TRUE(grid.ok());
  ASSERT_EQ(grid->size(), 4u);  // 0, 60, 120, 180
  EXPECT_DOUBLE_EQ(grid->values[0], 2);  // 0 and 10 -> point 0
  EXPECT_DOUBLE_EQ(grid->values[1], 5);  // 89 -> 60 (29 away)
  EXPECT_DOUBLE_EQ(grid->values[2], 7);  // 91 -> 120 (29 away)
  EXPECT_DOUBLE_EQ(grid->values[3], 9);  // 150 -> 180 (half way rounds up)
  EXPECT_EQ(grid->merged_samples, 1u);
  EXPECT_EQ(grid->filled_points, 0u);
}

TEST(RegularGrid, UnsortedAndNonFiniteSamples) {
  auto grid = ResampleToGrid(Samples({{120, 3}, {0, 1}, {60, std::nan("")}, {60, 2}}));
  ASSERT_TRUE(grid.ok());
  ASSERT_EQ(grid->size(), 3u);
  EXPECT_DOUBLE_EQ(grid->values[1], 2);
  EXPECT_EQ(grid->samples, 3u);
}

TEST(RegularGrid, RefusesWhatHasNoStepOrIsTooLarge) {
  EXPECT_FALSE(ResampleToGrid(Samples({{5, 1}})).ok());
  EXPECT_FALSE(ResampleToGrid({}).ok());
  GridOptions options;
  options.max_points = 100;
  options.step = 1;
  auto huge = ResampleToGrid(Samples({{0, 1}, {1, 1}, {1'000'000, 1}}), options);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("more than 100"), std::string::npos);
}

TEST(RegularGrid, CoarsenAveragesWholeGroupsAndThePartialLast) {
  RegularGrid fine;
  fine.start = 0;
  fine.step = 10;
  fine.values = {1, 3, 5, 7, 9};
  fine.observed = {1, 0, 0, 0, 1};
  RegularGrid coarse = Coarsen(fine, 2);
  EXPECT_EQ(coarse.step, 20);
  ASSERT_EQ(coarse.size(), 3u);
  EXPECT_DOUBLE_EQ(coarse.values[0], 2);
  EXPECT_DOUBLE_EQ(coarse.values[1], 6);
  EXPECT_DOUBLE_EQ(coarse.values[2], 9);
  EXPECT_EQ(coarse.observed[1], 0);
  EXPECT_EQ(coarse.observed[2], 1);
}

}  // namespace
}  // namespace kraken::temporal
