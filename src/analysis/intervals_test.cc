#include "analysis/intervals.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

TEST(IntervalSetTest, UnionMergesOverlapsAndTouchingIntervals) {
  auto set = IntervalSet::Union({{10, 20}, {15, 30}, {30, 35}, {50, 60}, {5, 5}});
  ASSERT_EQ(set.intervals().size(), 2u);
  EXPECT_EQ(set.intervals()[0], (Interval{10, 35}));
  EXPECT_EQ(set.TotalLength(), 35);
}

TEST(IntervalSetTest, MinusAndIntersectPartitionTheSet) {
  auto comm = IntervalSet::Union({{0, 100}, {200, 300}});
  auto comp = IntervalSet::Union({{50, 120}, {210, 220}, {250, 260}});
  auto exposed = comm.Minus(comp);
  auto overlapped = comm.Intersect(comp);
  EXPECT_EQ(exposed.TotalLength(), 50 + 10 + 30 + 40);
  EXPECT_EQ(overlapped.TotalLength(), 50 + 10 + 10);
  EXPECT_EQ(exposed.TotalLength() + overlapped.TotalLength(), comm.TotalLength());
}

TEST(IntervalSetTest, ClipAndLengthWithinAgree) {
  auto set = IntervalSet::Union({{0, 10}, {20, 30}, {40, 50}});
  Interval window{5, 45};
  EXPECT_EQ(set.Clip(window).TotalLength(), 5 + 10 + 5);
  EXPECT_EQ(set.LengthWithin(window), 20);
  EXPECT_EQ(set.LengthWithin({100, 200}), 0);
}

}  // namespace
}  // namespace kraken
