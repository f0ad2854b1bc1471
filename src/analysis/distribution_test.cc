#include "analysis/distribution.h"

#include <gtest/gtest.h>

namespace kraken {
namespace {

TEST(DistributionTest, MatchesNumpyLinearPercentiles) {
  // The six ProfilerStep durations (µs) of the tb_plugin ResNet-50 num_workers=0 trace;
  // numpy.percentile(v, [50, 99]) = 176273.0, 181041.95; pstdev/mean = 0.0297523.
  Distribution d = Summarize({176078, 173992, 176918, 181259, 176468, 164261});
  EXPECT_EQ(d.count, 6);
  EXPECT_NEAR(d.mean, 174829.3333, 1e-3);
  EXPECT_DOUBLE_EQ(d.p50, 176273.0);
  EXPECT_NEAR(d.p99, 181041.95, 1e-6);
  EXPECT_DOUBLE_EQ(d.min, 164261);
  EXPECT_DOUBLE_EQ(d.max, 181259);
  EXPECT_NEAR(d.cv(), 0.0297523, 1e-6);
}

TEST(DistributionTest, EmptyAndSingleValues) {
  Distribution empty = Summarize({});
  EXPECT_EQ(empty.count, 0);
  EXPECT_EQ(empty.cv(), 0);
  Distribution one = Summarize({42});
  EXPECT_EQ(one.p50, 42);
  EXPECT_EQ(one.p99, 42);
  EXPECT_EQ(one.stddev, 0);
}

}  // namespace
}  // namespace kraken
