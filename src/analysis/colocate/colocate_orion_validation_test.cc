// Validation against Orion (Strati et al., EuroSys'24) on its own V100 kernel profiles.
//
// Measured reference: the MPS run committed with Orion's artifact,
// artifact_evaluation/fig7/config_files/mps/eval-resnet50train-resnet50-1.log.json
// (eth-easl/orion @ aded65d): the Figure 7 setup, a high-priority ResNet50 inference
// client (batch 4, Poisson arrivals at 30 requests/s, 100 requests) beside a
// best-effort ResNet50 training client (batch 32) under MPS without an SM limit, on a
// V100-16GB. It reports p50 64.37 ms, p95 156.59 ms, p99 181.01 ms for the inference
// and 9.2225 iterations/s for the training. The paper's own figures could not be
// retrieved (see docs/colocation.md), so this run is the one measured point compared.
#include <cmath>
#include <cstdio>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/colocate_test_util.h"
#include "analysis/colocate/sharing_context.h"
#include "analysis/colocate/sharing_modes.h"
#include "analysis/colocate/sm_queue.h"

namespace kraken {
namespace {

constexpr double kMeasuredP99Ms = 181.01235866546628;
constexpr double kMeasuredTrainItersPerS = 9.222503335889117;

TEST(ColocateOrionValidation, DemandVectorsFromTheKernelLists) {
  WorkloadSetup inference;
  inference.request_rate_per_s = 30;
  ColocationWorkload inf = testing::OrionWorkload("resnet50_4_fwd", inference);
  ColocationWorkload train = testing::OrionWorkload("resnet50_32_fb1");
  // One inference pass: 175 kernels, 6.498424 ms back to back; busy = 30/s x 6.498 ms.
  EXPECT_NEAR(inf.request_s, 0.006498424, 1e-12);
  EXPECT_NEAR(inf.busy, 30 * 0.006498424, 1e-12);
  EXPECT_NEAR(inf.kernels_per_busy_s, 175 / 0.006498424, 1e-6);
  EXPECT_NEAR(inf.mean_fill, 0.547, 0.0005);
  // Grids of >= 1 block per SM (80 on the V100) hold the block dispatcher: 29.8 % of the
  // inference's kernel time, residual sum(d^2) / (2 sum(d)) over them.
  EXPECT_NEAR(inf.sm_hold_share, 0.297961, 1e-6);
  EXPECT_NEAR(inf.sm_hold_residual_s * 1e6, 29.5856, 1e-4);
  EXPECT_NEAR(inf.sm_hold_kernels_per_busy_s, 10617.9591, 1e-3);
  // One training iteration: 946 kernels, 95.277683 ms; no timeline, so busy is assumed 1.
  EXPECT_NEAR(train.kernels_per_busy_s, 946 / 0.095277683, 1e-6);
  EXPECT_EQ(train.busy, 1.0);
  EXPECT_NEAR(train.mean_fill, 0.906, 0.0005);
  EXPECT_NEAR(train.sm_hold_share, 0.805727, 1e-6);
  EXPECT_NEAR(train.sm_hold_residual_s * 1e6, 224.3606, 1e-4);
  EXPECT_NEAR(train.sm_hold_kernels_per_busy_s, 3725.9512, 1e-3);
}

TEST(ColocateOrionValidation, MpsResNet50InferenceBesideResNet50Training) {
  WorkloadSetup inference;
  inference.request_rate_per_s = 30;
  std::vector<ColocationWorkload> ws = {testing::OrionWorkload("resnet50_4_fwd", inference),
                                        testing::OrionWorkload("resnet50_32_fb1")};
  SharingContext ctx = MakeSharingContext(ws, ColocationParameters{}, FindDeviceSpec("v100-pcie"));
  ModePrediction mps = PredictMps(ws, ctx, {1, 1});
  const WorkloadPrediction &inf = mps.workloads[0], &train = mps.workloads[1];
  // Predicted training throughput if alone it ran its kernels back to back.
  double train_iters = 1 / (0.095277683 * train.slowdown);
  std::printf("Orion fig7 MPS run: inference p99 measured %.1f ms, predicted %.1f ms (alone %.1f ms); training "
              "measured %.3f it/s, predicted %.3f it/s (slowdown %.4f)\n",
              kMeasuredP99Ms, inf.p99_colocated_ms, inf.p99_alone_ms, kMeasuredTrainItersPerS, train_iters,
              train.slowdown);
  EXPECT_NEAR(inf.p99_colocated_ms, 116.73, 0.01);
  EXPECT_NEAR(inf.p99_alone_ms, 18.49, 0.01);
  EXPECT_NEAR(train.slowdown, 1.1384, 0.0001);
  // Agreement: training throughput within 1 % (-0.03 %: the trainer loses one inference
  // kernel at the end of each of its full grids); the p99 within 40 % (-35.5 %: a
  // request's kernels, launched back to back, get the time the trainer's full grids leave
  // plus one kernel per grid boundary, a lower wait than this run saw; the model before
  // the H100 ground truth was within 10 % here but 58 % off on the H100's MPS pairs).
  EXPECT_LT(std::abs(inf.p99_colocated_ms - kMeasuredP99Ms) / kMeasuredP99Ms, 0.40);
  EXPECT_LT(std::abs(train_iters - kMeasuredTrainItersPerS) / kMeasuredTrainItersPerS, 0.01);
  // Direction Orion's evaluation rests on: MPS keeps the best-effort trainer near its
  // solo speed and lets the high-priority inference's tail grow several-fold (here the
  // measured p99 is 28x the 6.5 ms of kernels one request runs).
  EXPECT_GT(inf.p99_increase, 5.0);
  EXPECT_LT(train.slowdown, 1.25);
  EXPECT_EQ(inf.contended_resource, "SM queue (co-runner's blocks)");
  // Keeping the two apart with an SM split removes the queueing behind the trainer's
  // blocks: the worst penalty drops (the premise of interference-aware sharing).
  ModePrediction split = SuggestMpsSplit(ws, ctx);
  double worst_split = std::max(split.workloads[0].penalty, split.workloads[1].penalty);
  EXPECT_LT(worst_split, std::max(inf.penalty, train.penalty));
  EXPECT_LE(split.sm_shares[0] + split.sm_shares[1], 1.0 + 1e-9);
  // A V100 has no MIG.
  EXPECT_FALSE(PredictMig(ws, ctx).feasible);
}

TEST(ColocateOrionValidation, Figure7PairsQueueBehindTheTrainerAndASplitRemovesIt) {
  // Figure 7's configurations (artifact run.py: ResNet50 inference at 15 requests/s,
  // MobileNetV2 at 40, each beside every training job). No measured numbers per pair are
  // available to compare; what Orion's evaluation rests on must hold for each: without a
  // cap the inference's p99 grows (by 2x to 9x here: its kernels queue behind the trainer's
  // grids) while the trainer stays near its solo speed, and an SM split removes the queue.
  const char* trainers[] = {"resnet50_32_fb1", "mobilenetv2_64_fb1", "resnet101_32_fb1", "bert_8_fb1",
                            "transformer_xl_8_fb1"};
  for (const auto& [hp, rate] : std::vector<std::pair<const char*, double>>{{"resnet50_4_fwd", 15}, {"mobilenetv2_4_fwd", 40}}) {
    WorkloadSetup setup;
    setup.request_rate_per_s = rate;
    for (const char* be : trainers) {
      std::vector<ColocationWorkload> ws = {testing::OrionWorkload(hp, setup), testing::OrionWorkload(be)};
      SharingContext ctx = MakeSharingContext(ws, ColocationParameters{}, FindDeviceSpec("v100-pcie"));
      ModePrediction mps = PredictMps(ws, ctx, {1, 1});
      ModePrediction split = SuggestMpsSplit(ws, ctx);
      std::printf("%s@%.0f/s + %s: MPS p99 %.1f -> %.1f ms, trainer x%.3f; split %.0f/%.0f: p99 %.1f ms, trainer "
                  "x%.3f\n",
                  hp, rate, be, mps.workloads[0].p99_alone_ms, mps.workloads[0].p99_colocated_ms,
                  mps.workloads[1].slowdown, split.sm_shares[0] * 100, split.sm_shares[1] * 100,
                  split.workloads[0].p99_colocated_ms, split.workloads[1].slowdown);
      EXPECT_GT(mps.workloads[0].p99_increase, 1.5) << hp << " + " << be;
      EXPECT_LT(mps.workloads[1].slowdown, 1.25) << hp << " + " << be;
      EXPECT_EQ(mps.workloads[0].contended_resource, "SM queue (co-runner's blocks)") << hp << " + " << be;
      EXPECT_LT(split.workloads[0].p99_colocated_ms, mps.workloads[0].p99_colocated_ms) << hp << " + " << be;
    }
  }
}

}  // namespace
}  // namespace kraken
