// What every sharing-mode model needs besides the workloads: the parameters, the device
// and the pairwise collision probabilities; and the step all modes end with, from the
// extra time a workload's work takes to its slowdown, p99 latency and QoS verdict.
#pragma once

#include <string>
#include <vector>

#include "analysis/colocate/colocation_parameters.h"
#include "analysis/colocate/temporal_overlap.h"
#include "model/colocation.h"
#include "model/device.h"

namespace kraken {

struct SharingContext {
  ColocationParameters params;
  const DeviceSpec* device = nullptr;  // may be null: no MIG table, fallback switch cost
  double switch_s = 0;
  std::vector<std::vector<CollisionEstimate>> collision;  // [a][b]: P(b busy | a busy)
};

SharingContext MakeSharingContext(const std::vector<ColocationWorkload>& workloads, const ColocationParameters& params,
                                  const DeviceSpec* device);

// Extra time a workload's GPU work takes when shared, in two kinds: a stretch of its
// busy time (slower kernels) and discrete waits (time slices, queued blocks).
struct ExtraTime {
  // Mean extra GPU time per second of its own busy time.
  double stretch_per_busy_s = 0;
  // One request (request_gpu_s of GPU work): mean and p99 extra seconds.
  double request_mean_s = 0;
  double request_p99_s = 0;
  // Contribution per resource (same unit as stretch_per_busy_s) to name the contended one.
  std::vector<std::pair<std::string, double>> by_resource;
  std::vector<FormulaTerm> terms;
};

// Slowdown, latency (with queueing when a rate is given) and QoS from the extra time.
WorkloadPrediction FinishPrediction(const ColocationWorkload& w, const ExtraTime& extra, const SharingContext& ctx);

// Marks every prediction of `mode` as not fitting when the measured memory of the
// workloads sharing the memory exceeds the device's; returns false when it does.
bool CheckSharedMemory(const std::vector<ColocationWorkload>& workloads, const SharingContext& ctx,
                       ModePrediction* mode);

// Score of a pair prediction: 1/slowdown_a + 1/slowdown_b - 1 within [0, 1], the work
// the pair gets done beyond one GPU's worth (0 when infeasible). Throughput capacity, not
// latency: QoS verdicts carry the latency side.
double PairScoreOf(const ModePrediction& mode);

// Sets the mode's score (pairs) and whether every workload meets its QoS limit.
void FinalizeMode(ModePrediction* mode);

}  // namespace kraken
