#include "model/time_base.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

Series ClockedSeries(std::string name, std::vector<TimeNs> times) {
  Series s;
  s.source_name = std::move(name);
  s.entity.gpu_index = 0;
  for (TimeNs t : times) s.samples.push_back(Sample{t, 1.0});
  return s;
}

TEST(TimeBaseTest, ClassifiesEpochAndRelativeTimestamps) {
  EXPECT_EQ(TimeBaseOf(0), TimeBase::kRelative);
  EXPECT_EQ(TimeBaseOf(4'000'000'000), TimeBase::kRelative);
  // 2026-07-14T08:12:38Z, the H100 capture's collection time.
  EXPECT_EQ(TimeBaseOf(1'784'016'758'000'000'000), TimeBase::kEpoch);
}

TEST(TimeBaseTest, RefusesAProfileThatMixesClocksAndNamesBothSeries) {
  Profile p;
  p.series.push_back(ClockedSeries("utilization.gpu", {1'784'016'758'000'000'000}));
  ASSERT_TRUE(ProfileTimeBase(p).ok());
  EXPECT_EQ(*ProfileTimeBase(p), TimeBase::kEpoch);
  p.series.push_back(ClockedSeries("sm", {0, 1'000'000'000}));
  auto mixed = ProfileTimeBase(p);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("'utilization.gpu' of gpu 0"), std::string::npos) << mixed.status().message();
  EXPECT_NE(mixed.status().message().find("'sm' of gpu 0"), std::string::npos);
}

TEST(TimeBaseTest, IterationAxesAreNotClocks) {
  Profile p;
  p.series.push_back(ClockedSeries("utilization.gpu", {1'784'016'758'000'000'000}));
  Series steps = ClockedSeries("mini_batch_time", {1, 2, 3});
  steps.axis = SampleAxis::kIteration;
  p.series.push_back(steps);
  ASSERT_TRUE(ProfileTimeBase(p).ok());
  EXPECT_EQ(*ProfileTimeBase(p), TimeBase::kEpoch);
  EXPECT_EQ(*ProfileTimeBase(Profile{}), TimeBase::kNone);
}

}  // namespace
}  // namespace kraken
