// The model's formulas on small synthetic workloads whose answers can be worked out by
// hand (docs/colocation.md), and the class-pair table's exact values.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/queueing.h"
#include "analysis/colocate/sharing_context.h"
#include "analysis/colocate/sharing_modes.h"
#include "analysis/colocate/temporal_overlap.h"
#include "model/device_catalog.h"
#include "model/workload_demand.h"

namespace kraken {
namespace {

// A workload whose kernels all have one SM fill, busy `busy` of the time.
ColocationWorkload Synthetic(const std::string& name, double busy, double fill, double dram = 0.2,
                             double memory_bound = 0.2) {
  ColocationWorkload w;
  w.name = name;
  w.busy = busy;
  w.fill_share.assign(kSmFillBins + 1, 0.0);
  size_t bin = fill >= 1 ? kSmFillBins : static_cast<size_t>(fill * kSmFillBins);
  w.fill_share[bin] = 1.0;
  w.mean_fill = fill >= 1 ? 1.0 : (static_cast<double>(bin) + 0.5) / kSmFillBins;
  w.dram_intensity = dram;
  w.memory_bound_share = memory_bound;
  return w;
}

// The same with a kernel timeline: `per_s` kernels per busy second of equal duration, all of
// them grids of >= 1 block per SM when the fill is 1 (they hold the block dispatcher).
ColocationWorkload SyntheticKernels(const std::string& name, double busy, double fill, double per_s) {
  ColocationWorkload w = Synthetic(name, busy, fill);
  w.kernels_per_busy_s = per_s;
  if (fill >= 1) {
    w.sm_hold_share = 1;
    w.sm_hold_kernels_per_busy_s = per_s;
    w.sm_hold_residual_s = 0.5 / per_s;  // equal durations d: d^2 / (2 d)
  }
  return w;
}

std::vector<double> SquareWave(size_t periods, size_t period_bins, size_t phase) {
  std::vector<double> bins;
  for (size_t k = 0; k < periods * period_bins; ++k) bins.push_back(((k + phase) % period_bins) < period_bins / 2 ? 1.0 : 0.0);
  return bins;
}

TEST(ColocateModel, ClassTableValuesAreExactAndSymmetric) {
  EXPECT_EQ(ClassTableScore("compute", "memory"), 0.95);
  EXPECT_EQ(ClassTableScore("memory", "compute"), 0.95);
  EXPECT_EQ(ClassTableScore("compute", "mixed"), 0.70);
  EXPECT_EQ(ClassTableScore("mixed", "compute"), 0.70);
  EXPECT_EQ(ClassTableScore("memory", "mixed"), 0.60);
  EXPECT_EQ(ClassTableScore("mixed", "memory"), 0.60);
  EXPECT_EQ(ClassTableScore("mixed", "mixed"), 0.35);
  EXPECT_EQ(ClassTableScore("compute", "compute"), 0.25);
  EXPECT_EQ(ClassTableScore("memory", "memory"), 0.15);
  EXPECT_EQ(ClassTableScore("latency", "memory"), 0.0);
}

TEST(ColocateModel, ClassTableReportScoresEveryPair) {
  std::vector<ColocationWorkload> ws = {Synthetic("a", 1, 1), Synthetic("b", 1, 1), Synthetic("c", 1, 1)};
  ws[0].work_class = "compute";
  ws[1].work_class = "memory";
  ws[2].work_class = "mixed";
  ColocateOptions options;
  options.model = "class-table";
  ColocationReport r = PredictColocation(ws, options);
  ASSERT_EQ(r.pairs.size(), 3u);
  EXPECT_EQ(r.pairs[0].score, 0.95);  // a+b
  EXPECT_EQ(r.pairs[1].score, 0.70);  // a+c
  EXPECT_EQ(r.pairs[2].score, 0.60);  // b+c
  EXPECT_TRUE(r.modes.empty());
}

TEST(ColocateModel, QueueingFormulas) {
  // rho = 30/s x 6.5 ms = 0.195; E[W] = 30 x 0.0065^2 / (2 x 0.805) = 0.7873 ms;
  // W99 = E[W] / rho x ln(rho / 0.01) = 4.0373 ms x 2.97041 = 11.9925 ms.
  EXPECT_NEAR(Mg1WaitQuantileSeconds(30, 0.0065, 0.0065 * 0.0065, 0.99), 0.0119925, 1e-6);
  EXPECT_EQ(Mg1WaitQuantileSeconds(30, 0.0065, 0.0065 * 0.0065, 0.5), 0.0);  // rho < 1 - p: no wait at p50
  EXPECT_TRUE(std::isinf(Mg1WaitQuantileSeconds(200, 0.0065, 0.0065 * 0.0065, 0.99)));
  EXPECT_NEAR(BinomialUpperQuantile(100, 0.5, 2.326), 50 + 2.326 * 5, 1e-12);
  EXPECT_EQ(BinomialUpperQuantile(4, 1.0, 2.326), 4.0);
  EXPECT_EQ(BinomialUpperQuantile(10, 0.0, 2.326), 0.0);
}

TEST(ColocateModel, PeriodAndInterleavedPhases) {
  // Two 50 % square waves of 20 ms period in 1 ms bins, in phase.
  ColocationWorkload a = Synthetic("a", 0.5, 1), b = Synthetic("b", 0.5, 1);
  a.busy_bins = SquareWave(10, 20, 0);
  b.busy_bins = SquareWave(10, 20, 0);
  a.bin_s = b.bin_s = 0.001;
  a.period_s = DetectPeriodSeconds(a.busy_bins, 0.001, 0.5);
  b.period_s = DetectPeriodSeconds(b.busy_bins, 0.001, 0.5);
  EXPECT_NEAR(a.period_s, 0.020, 1e-12);
  CollisionEstimate c = EstimateCollision(a, b, ColocationParameters{});
  EXPECT_TRUE(c.phase_locked);
  EXPECT_EQ(c.random_phase, 0.5);
  EXPECT_EQ(c.locked_phase, 0.0);  // the busy halves interleave
  EXPECT_EQ(c.locked_active, 0.0);  // and b has no work queued in its idle half
  EXPECT_EQ(c.q, 0.0);
  // Periods 20 and 30 ms: the phases drift, collisions at the random-phase rate.
  b.busy_bins = SquareWave(7, 30, 0);
  b.period_s = DetectPeriodSeconds(b.busy_bins, 0.001, 0.5);
  EXPECT_NEAR(b.period_s, 0.030, 1e-12);
  c = EstimateCollision(a, b, ColocationParameters{});
  EXPECT_FALSE(c.phase_locked);
  EXPECT_EQ(c.q, 0.5);
  // A flat profile has no period.
  EXPECT_EQ(DetectPeriodSeconds(std::vector<double>(100, 0.7), 0.001, 0.5), 0.0);
}

TEST(ColocateModel, LockedPhaseCannotHideALaunchBoundCoRunnerUnderTimeSlicing) {
  // a: busy but for one idle millisecond per 20 ms; b: launch-bound, kernels running 30 %
  // then 10 % of each millisecond of the same 20 ms period, but launching in every one.
  ColocationWorkload a = Synthetic("saturating", 0.95, 1), b = Synthetic("launch-bound", 0.2, 1);
  for (size_t k = 0; k < 200; ++k) {
    a.busy_bins.push_back(k % 20 == 0 ? 0.0 : 1.0);
    b.busy_bins.push_back(k % 20 < 10 ? 0.3 : 0.1);
  }
  a.bin_s = b.bin_s = 0.001;
  a.period_s = DetectPeriodSeconds(a.busy_bins, 0.001, 0.5);
  b.period_s = DetectPeriodSeconds(b.busy_bins, 0.001, 0.5);
  ASSERT_NEAR(a.period_s, 0.020, 1e-12);
  ASSERT_NEAR(b.period_s, 0.020, 1e-12);
  CollisionEstimate c = EstimateCollision(a, b, ColocationParameters{});
  ASSERT_TRUE(c.phase_locked);
  // Kernel time overlaps least with a's idle bin on one of b's 30 % bins: (9 x 0.3 + 10 x 0.1) / 19.
  EXPECT_NEAR(c.locked_phase, (9 * 0.3 + 10 * 0.1) / 19, 1e-12);
  // But b has work queued in every bin: no phase keeps it off a's slice ends.
  EXPECT_EQ(c.locked_active, 1.0);
  std::vector<ColocationWorkload> ws = {a, b};
  SharingContext ctx = MakeSharingContext(ws, ColocationParameters{}, FindDeviceSpec("h100-sxm"));
  ModePrediction m = PredictTimeSlice(ws, ctx);
  // a loses b's backlog (i = busy / active = 0.2: i / (1 - i) x (slice + 2 switches)) at every slice end.
  const double slice = 0.002, wait = slice + 2 * ctx.switch_s;
  const double hold = 0.2 / 0.8 * wait;
  EXPECT_NEAR(m.workloads[0].slowdown, 1 + a.busy * 1.0 * (hold + 2 * ctx.switch_s) / slice, 1e-9);
}

TEST(ColocateModel, TimeSliceOfTwoSaturatingWorkloads) {
  const DeviceSpec* v100 = FindDeviceSpec("v100-pcie");
  std::vector<ColocationWorkload> ws = {Synthetic("a", 1, 1), Synthetic("b", 1, 1)};
  SharingContext ctx = MakeSharingContext(ws, ColocationParameters{}, v100);
  // One switch moves 80 SMs x 384 KiB out and in at 900 GB/s: 69.905 us.
  EXPECT_NEAR(ctx.switch_s, 2 * 80 * 393216.0 / 900e9, 1e-15);
  ModePrediction m = PredictTimeSlice(ws, ctx);
  // Each loses a 2 ms slice plus two switches per 2 ms it runs: 1 + (2 + 0.1398) / 2.
  double expected = 1 + (0.002 + 2 * ctx.switch_s) / 0.002;
  EXPECT_NEAR(m.workloads[0].slowdown, expected, 1e-12);
  EXPECT_NEAR(m.workloads[1].slowdown, expected, 1e-12);
  EXPECT_EQ(m.workloads[0].contended_resource, "GPU time (time slices)");
  EXPECT_DOUBLE_EQ(m.score, 0.0);  // 2 x 1/2.07 - 1 < 0: no gain over one at a time
}

TEST(ColocateModel, MpsShareSlowsOnlyKernelsLargerThanIt) {
  const DeviceSpec* v100 = FindDeviceSpec("v100-pcie");
  // Kernels filling 0.325 of the SMs fit a 0.5 share: no slowdown while alone.
  std::vector<ColocationWorkload> small = {Synthetic("small", 1, 0.3), Synthetic("idle", 0, 0.3)};
  SharingContext ctx = MakeSharingContext(small, ColocationParameters{}, v100);
  ModePrediction m = PredictMps(small, ctx, {0.5, 0.5});
  EXPECT_DOUBLE_EQ(m.workloads[0].slowdown, 1.0);
  // Full grids under a 0.5 share take twice as long (busy 1: slowdown 2).
  std::vector<ColocationWorkload> full = {Synthetic("full", 1, 1), Synthetic("idle", 0, 0.3)};
  ctx = MakeSharingContext(full, ColocationParameters{}, v100);
  m = PredictMps(full, ctx, {0.5, 0.5});
  EXPECT_DOUBLE_EQ(m.workloads[0].slowdown, 2.0);
  EXPECT_EQ(m.workloads[0].contended_resource, "SMs");
  // Without a cap, two saturating workloads of equal full grids take turns kernel by kernel
  // (the dispatcher serves grids in launch order): each lets one of the other's kernels
  // in at the end of each of its own, so each runs at half speed.
  std::vector<ColocationWorkload> both = {SyntheticKernels("a", 1, 1, 1000), SyntheticKernels("b", 1, 1, 1000)};
  ctx = MakeSharingContext(both, ColocationParameters{}, v100);
  m = PredictMps(both, ctx, {1, 1});
  EXPECT_DOUBLE_EQ(m.workloads[0].slowdown, 2.0);
  EXPECT_DOUBLE_EQ(m.workloads[1].slowdown, 2.0);
  EXPECT_EQ(m.workloads[0].contended_resource, "SM queue (co-runner's blocks)");
  // Without kernel durations (sampled metrics) the queue is not modelled, and said so: the
  // two full grids split the SMs instead (factor fill_a + fill_b = 2).
  both = {Synthetic("a", 1, 1), Synthetic("b", 1, 1)};
  ctx = MakeSharingContext(both, ColocationParameters{}, v100);
  m = PredictMps(both, ctx, {1, 1});
  EXPECT_DOUBLE_EQ(m.workloads[0].slowdown, 2.0);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("SM queue not modelled"), std::string::npos);
}

TEST(ColocateModel, MpsBandwidthContention) {
  const DeviceSpec* v100 = FindDeviceSpec("v100-pcie");
  // Small grids (no SM contention), DRAM 0.7 each, all memory-bound: (0.7 + 0.7) / 0.9.
  std::vector<ColocationWorkload> ws = {Synthetic("a", 1, 0.3, 0.7, 1.0), Synthetic("b", 1, 0.3, 0.7, 1.0)};
  SharingContext ctx = MakeSharingContext(ws, ColocationParameters{}, v100);
  ModePrediction m = PredictMps(ws, ctx, {0.5, 0.5});
  EXPECT_NEAR(m.workloads[0].slowdown, 1.4 / 0.9, 1e-12);
  EXPECT_EQ(m.workloads[0].contended_resource, "DRAM bandwidth");
}

TEST(ColocateModel, MigSliceSharesAndUnsupportedDevice) {
  const DeviceSpec* a100 = FindDeviceSpec("a100-40gb-sxm");
  std::vector<ColocationWorkload> ws = {Synthetic("a", 1, 1, 0.2, 0.0), Synthetic("b", 1, 1, 0.2, 0.0)};
  SharingContext ctx = MakeSharingContext(ws, ColocationParameters{}, a100);
  ModePrediction m = PredictMig(ws, ctx);
  ASSERT_TRUE(m.feasible);
  // The best pair is 3g + 4g (or 4g + 3g): full grids run at 3/7 and 4/7 of the SMs.
  ASSERT_EQ(m.mig_profiles.size(), 2u);
  double worst = std::max(m.workloads[0].slowdown, m.workloads[1].slowdown);
  EXPECT_NEAR(worst, 7.0 / 3.0, 1e-12);
  EXPECT_NEAR(std::min(m.workloads[0].slowdown, m.workloads[1].slowdown), 7.0 / 4.0, 1e-12);
  ctx = MakeSharingContext(ws, ColocationParameters{}, FindDeviceSpec("v100-pcie"));
  m = PredictMig(ws, ctx);
  EXPECT_FALSE(m.feasible);
  EXPECT_EQ(m.infeasible_reason, "v100-pcie does not support MIG");
}

TEST(ColocateModel, SuggestedSplitMeetsQosFirst) {
  const DeviceSpec* v100 = FindDeviceSpec("v100-pcie");
  std::vector<ColocationWorkload> ws = {SyntheticKernels("a", 1, 1, 1000), SyntheticKernels("b", 1, 1, 1000)};
  ws[0].max_slowdown = 1.5;  // a needs at least 2/3 of the SMs (uncapped: 2.0, see above)
  SharingContext ctx = MakeSharingContext(ws, ColocationParameters{}, v100);
  ModePrediction m = SuggestMpsSplit(ws, ctx);
  ASSERT_EQ(m.sm_shares.size(), 2u);
  EXPECT_NEAR(m.sm_shares[0], 0.70, 1e-12);  // the smallest 5 % step >= 2/3 that minimises b's slowdown
  EXPECT_NEAR(m.workloads[0].slowdown, 1 / 0.70, 1e-12);
  EXPECT_TRUE(m.workloads[0].qos_ok);
  EXPECT_NEAR(m.workloads[1].slowdown, 1 / 0.30, 1e-12);
}

}  // namespace
}  // namespace kraken
