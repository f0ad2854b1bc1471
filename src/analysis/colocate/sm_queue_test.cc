// The MPS SM-queue terms (sm_queue.cc), the time-slice backlog terms (temporal_overlap.cc)
// and the measured-error table (model_validation.cc), on figures worked out by hand.
#include <gtest/gtest.h>

#include "analysis/colocate/model_validation.h"
#include "analysis/colocate/sm_queue.h"
#include "analysis/colocate/temporal_overlap.h"

namespace kraken {
namespace {

// A workload of `per_s` kernels per busy second (mean 1/per_s), busy `busy` of its time.
ColocationWorkload QueueWorkload(double busy, double per_s) {
  ColocationWorkload w;
  w.name = "w";
  w.busy = busy;
  w.kernels_per_busy_s = per_s;
  return w;
}

// A co-runner whose grids of >= 1 block per SM take `share` of its kernel time, `per_s`
// of them per busy second, residual `residual_s`.
ColocationWorkload Holder(double share, double per_s, double residual_s) {
  ColocationWorkload o = QueueWorkload(1, per_s);
  o.name = "o";
  o.sm_hold_share = share;
  o.sm_hold_kernels_per_busy_s = per_s;
  o.sm_hold_residual_s = residual_s;
  return o;
}

TEST(SmQueue, BackloggedWorkloadGetsTheTimeLeftAndOneKernelPerHold) {
  // 100 us kernels; the co-runner holds 0.9 of the time (q 0.9 x share 1) in 500 grids/s
  // with 1 ms of residual.
  SmQueueEstimate e = EstimateSmQueue(QueueWorkload(0.5, 10000), 0.5, Holder(1, 500, 1e-3), 0.9);
  ASSERT_TRUE(e.modelled);
  EXPECT_DOUBLE_EQ(e.blocked_share, 0.9);
  EXPECT_NEAR(e.wait_stretch, 10000 * 0.9 * 1e-3, 1e-12);          // 9: every kernel waits 1 ms
  EXPECT_NEAR(e.available, 1 - 0.9 + 0.9 * 500 * 1e-4, 1e-12);     // 0.145
  EXPECT_NEAR(e.slot_stretch, (0.5 / 0.145 - 1) / 0.5, 1e-12);      // 4.897: the tighter bound
  EXPECT_NEAR(e.throughput_stretch, e.slot_stretch, 1e-12);
  EXPECT_NEAR(e.latency_stretch, 1 / 0.145 - 1, 1e-12);            // within a request: busy 1
}

TEST(SmQueue, KernelLetInBesideAGridWhoseBlocksShareTheSmsTakesTwiceAsLong) {
  ColocationWorkload o = Holder(1, 500, 1e-3);
  o.sm_hold_coresident_share = 1;  // a many-block grid: its next one fills the SMs beside
  SmQueueEstimate e = EstimateSmQueue(QueueWorkload(0.5, 10000), 0.5, o, 0.9);
  EXPECT_DOUBLE_EQ(e.corun_factor, 2);
  EXPECT_NEAR(e.wait_stretch, 10000 * 0.9 * 1e-3 + 0.9 * 1, 1e-12);  // + x (c - 1)
  EXPECT_NEAR(e.available, 1 - 0.9 + 0.9 * 500 * 1e-4 / 2, 1e-12);    // 0.1225
  EXPECT_NEAR(e.throughput_stretch, (0.5 / 0.1225 - 1) / 0.5, 1e-12);
}

TEST(SmQueue, WorkloadThatFitsTheTimeLeftKeepsItsPace) {
  // Busy 0.1 < 0.145 open: its later kernels catch up in the gaps; only latency grows.
  SmQueueEstimate e = EstimateSmQueue(QueueWorkload(0.1, 10000), 0.1, Holder(1, 500, 1e-3), 0.9);
  EXPECT_DOUBLE_EQ(e.slot_stretch, 0);
  EXPECT_DOUBLE_EQ(e.throughput_stretch, 0);
  EXPECT_NEAR(e.latency_stretch, 1 / 0.145 - 1, 1e-12);
  // Long kernels (10 per busy second): the holds leave it all of the time (open 45.1), so
  // a request's kernels each just wait 0.9 x 1 ms.
  e = EstimateSmQueue(QueueWorkload(0.1, 10), 0.1, Holder(1, 500, 1e-3), 0.9);
  EXPECT_NEAR(e.latency_stretch, 10 * 0.9 * 1e-3, 1e-12);
}

TEST(SmQueue, NoHoldNoQueueAndMissingFiguresAreNotModelled) {
  SmQueueEstimate e = EstimateSmQueue(QueueWorkload(1, 1000), 1, QueueWorkload(1, 1000), 1);
  EXPECT_TRUE(e.modelled);
  EXPECT_DOUBLE_EQ(e.throughput_stretch, 0);
  EXPECT_DOUBLE_EQ(e.latency_stretch, 0);
  e = EstimateSmQueue(QueueWorkload(1, 0), 1, Holder(1, 500, 1e-3), 1);  // sampled metrics
  EXPECT_FALSE(e.modelled);
}

TEST(SmQueue, HolderLosesOneCoRunnerKernelPerHoldItEnds) {
  ColocationWorkload w = Holder(0.8, 500, 1e-3);
  ColocationWorkload o = QueueWorkload(1, 10000);
  SmQueueEstimate not_backlogged;
  // min(500 holds/s, q 0.5 x 10000 kernels/s x 0.8 held) x 100 us each.
  EXPECT_NEAR(InterleaveStretch(w, not_backlogged, o, 0.5), 500.0 / 10000, 1e-12);
  // Few co-runner kernels: only those arriving during its holds get in (0.5 x 10 x 0.8).
  EXPECT_NEAR(InterleaveStretch(w, not_backlogged, QueueWorkload(1, 10), 0.5), 4.0 / 10, 1e-12);
  SmQueueEstimate backlogged;
  backlogged.slot_stretch = 1;  // w waits behind o: its open time already counts o's kernels
  EXPECT_DOUBLE_EQ(InterleaveStretch(w, backlogged, o, 0.5), 0);
}

TEST(TimeSliceBacklog, ActiveShareCountsBinsWithAnyWork) {
  ColocationWorkload w;
  w.busy = 0.375;
  w.busy_bins = {0, 0.5, 0, 1};
  EXPECT_DOUBLE_EQ(ActiveShare(w), 0.5);
  w.busy_bins.clear();  // no profile: its busy fraction
  EXPECT_DOUBLE_EQ(ActiveShare(w), 0.375);
}

TEST(TimeSliceBacklog, LightCoRunnerHoldsTheGpuForItsBacklogOnly) {
  // Busy 0.18 of the time, active 0.9: intensity 0.2 -> 0.2 / 0.8 x (2 ms + 2 x 31 us).
  EXPECT_NEAR(BacklogHoldSeconds(0.18, 0.9, 0.002, 31e-6), 0.25 * 0.002062, 1e-15);
  EXPECT_DOUBLE_EQ(BacklogHoldSeconds(0.6, 1.0, 0.002, 31e-6), 0.002);  // intensity >= 1/2: a slice
  EXPECT_DOUBLE_EQ(BacklogHoldSeconds(0, 0.5, 0.002, 31e-6), 0);
}

TEST(ModelValidationTable, MeasuredModesQuoteTheirErrorOthersSayUnvalidated) {
  ModePrediction ts;
  ts.mode = SharingMode::kTimeSlice;
  ModeValidation v = ValidationFor(ts);
  EXPECT_TRUE(v.validated);
  EXPECT_EQ(v.pairs, 6);
  EXPECT_EQ(v.workloads, 12);
  EXPECT_NE(ValidationText(v).find("validated on an NVIDIA H100"), std::string::npos);
  ModePrediction mps;
  mps.mode = SharingMode::kMps;
  mps.sm_shares = {1, 1};
  EXPECT_TRUE(ValidationFor(mps).validated);
  mps.sm_shares = {0.5, 0.5};
  EXPECT_FALSE(ValidationFor(mps).validated);
  EXPECT_EQ(ValidationText(ValidationFor(mps)),
            "not validated on real hardware (MPS was measured only without an SM cap)");
  ModePrediction mig;
  mig.mode = SharingMode::kMig;
  EXPECT_FALSE(ValidationFor(mig).validated);
}

}  // namespace
}  // namespace kraken
