// One packing experiment: submit the pods of one Arrival (workload.h) one at a time to a
// policy, without retry (a pod that fits nowhere stays failed), and measure the cluster
// after every pod as the FGD paper's scripts do:
//   arrived % = GPU milli requested by the pods submitted so far (failed ones included)
//               / GPU capacity, rounded half-to-even to an integer;
//   unallocated % = 100 - allocated GPU milli / capacity (the allocation rounded to 0.01
//               per event, as the reference's merge script does);
//   frag % = cluster fragment (fragment.h) / capacity; frag ratio % = fragment / idle.
// The curve value at an integer x is the mean over the events whose arrived % rounds to
// x (the state before the first pod counts as an event at 0); with none, the events of
// x-1..x+1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/pack/policy.h"
#include "analysis/pack/workload.h"

namespace kraken::pack {

struct CurvePoint {
  int32_t arrived_pct = 0;
  double unallocated_pct = 0;
  double frag_pct = 0;
  double frag_ratio_pct = 0;
};

// Where one submitted pod went (node -1 = failed).
struct PlacementRecord {
  int32_t pod = 0;  // index into PackProblem::pods
  int32_t node = -1;
  GpuMask gpus = 0;
};

struct NodeExplanation {
  int32_t node = 0;
  int32_t rank = 0;
  NodeState state;  // the node as the policy saw it
  ScoreExplanation score;
};

// The candidates a policy saw for one pod, best first.
struct PlacementExplanation {
  int64_t position = 0;  // 0-based position in the arrival order
  int32_t pod = 0;
  int32_t feasible_nodes = 0;
  int32_t chosen_node = -1;
  std::vector<NodeExplanation> candidates;
};

struct ExperimentOptions {
  uint64_t seed = 42;
  double tune_ratio = 1.3;
  bool record_placements = false;
  std::vector<int64_t> explain_positions;  // arrival positions to explain
  size_t explain_candidates = 5;           // best candidates listed per explained pod
};

struct ExperimentResult {
  std::string policy;
  uint64_t seed = 0;
  std::vector<CurvePoint> curve;  // one point per integer arrived % with data
  int64_t pods_submitted = 0;
  int64_t pods_failed = 0;
  int64_t gpu_milli_failed = 0;
  int64_t arrived_gpu_milli = 0;
  int64_t allocated_gpu_milli = 0;
  double final_fragment_milli = 0;
  std::vector<PlacementRecord> placements;
  std::vector<PlacementExplanation> explanations;
};

// Runs one experiment. `meter` must be built from problem.typical. Fails only on an
// internal inconsistency (a policy choosing GPUs that do not fit).
Result<ExperimentResult> RunExperiment(const PackProblem& problem, const FragmentMeter& meter,
                                       const PackingPolicy& policy, const ExperimentOptions& options);

// Value of `curve` at `arrived_pct`; NaN when absent.
double UnallocatedAt(const std::vector<CurvePoint>& curve, int32_t arrived_pct);

}  // namespace kraken::pack
