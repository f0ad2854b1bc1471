// kraken's co-location prediction: for workloads that would share one GPU, the
// slowdown / p99 latency of each under time-slicing, MPS (with a suggested SM split)
// and MIG, a 0..1 score per pair, and every figure behind them. Pure functions over
// the demand-derived ColocationWorkload (model/colocation.h); see docs/colocation.md.
#pragma once

#include <string>
#include <vector>

#include "analysis/colocate/colocation_parameters.h"
#include "model/colocation.h"
#include "model/device.h"

namespace kraken {

struct SharingContext;

struct ColocateOptions {
  ColocationParameters params;
  std::vector<SharingMode> modes = {SharingMode::kTimeSlice, SharingMode::kMps, SharingMode::kMig};
  // MPS SM shares (fractions, one per workload); empty: kraken suggests one.
  std::vector<double> sm_split;
  std::string model = "measured";  // or "class-table" (the old tools' class-pair table)
  // The GPU they would share; null: the device the first workload was profiled on.
  const DeviceSpec* device = nullptr;
};

// The device the prediction is for, with a note when it had to be chosen.
const DeviceSpec* ResolveColocationDevice(const std::vector<ColocationWorkload>& workloads,
                                          const DeviceSpec* override_device, std::vector<std::string>* notes);

// MPS shares minimising the worst penalty, QoS limits first: every split in steps of
// 5 % for two workloads, 10 % for three or four, equal shares beyond, and no cap at all.
ModePrediction SuggestMpsSplit(const std::vector<ColocationWorkload>& workloads, const SharingContext& ctx);

// Predictions for all the workloads on one GPU, per requested mode, and the pair scores.
ColocationReport PredictColocation(const std::vector<ColocationWorkload>& workloads, const ColocateOptions& options);

// The class-pair table older tools use (symmetric): compute+memory 0.95, compute+mixed
// 0.70, memory+mixed 0.60, mixed+mixed 0.35, compute+compute 0.25, memory+memory 0.15.
double ClassTableScore(const std::string& class_a, const std::string& class_b);

// The model's general assumptions (docs/colocation.md), for --explain.
std::vector<std::string> ColocationAssumptions();

}  // namespace kraken
