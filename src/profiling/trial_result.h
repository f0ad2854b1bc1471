// What `kraken trial` found on each candidate and how the candidates rank (docs/trial.md).
// Pure: built from the candidate, its throughput readings and its attributed NVML passes.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "profiling/sampling_loop.h"
#include "profiling/trial_candidates.h"
#include "profiling/trial_throughput.h"
#include "profiling/tree_attribution.h"

namespace kraken::profiling {

// How the candidate's workload ended.
struct TrialExit {
  // "stopped": kraken ended it after the duration (or on a stop signal); "exited": it ended
  // by itself; "not started": exec failed.
  std::string state = "not started";
  std::optional<int> exit_code;  // the shell's view: status, or 128 + signal
  std::string stop_signal;       // "SIGTERM" / "SIGKILL" when kraken had to stop it
  bool during_warmup = false;    // it ended before the warmup was over
};

// The GPU-side facts of one candidate, on its GPU (the parent GPU for a MIG instance).
struct TrialGpuFacts {
  int64_t passes = 0;
  // Utilization over every pass: the tree's SM utilization when NVML reported it in every
  // pass, else the device's utilization (which counts other processes too), else unknown.
  std::string util_basis;  // "tree SM util", "device util", "" = unknown
  std::optional<double> util_p50_pct;
  std::optional<double> util_p95_pct;
  double memory_peak_bytes = 0;         // the tree's largest memory on the GPU in one pass
  int64_t passes_present = 0;           // passes in which a tree process was on the GPU
  std::set<int32_t> gpu_instances_seen;  // MIG GPU instances the tree's processes ran in
  // Every GPU a tree process appeared on, the candidate's or not: another GPU here means
  // the workload did not keep to CUDA_VISIBLE_DEVICES (or the GPU is shared with it).
  std::set<int32_t> gpus_seen;
};

TrialGpuFacts SummarizeCandidatePasses(const std::vector<PassRecord>& passes, int32_t gpu_index);

struct TrialResult {
  TrialCandidate candidate;
  TrialExit exit;
  StopReason sampling_stop = StopReason::kTargetEnded;
  bool sampled = false;                          // false when it ended during the warmup
  std::optional<ThroughputFigures> throughput;  // absent: no throughput source was given
  TrialGpuFacts gpu;
  int64_t profile_id = 0;  // in the store, 0 = not stored
  bool interrupted = false;  // a stop signal ended this candidate
};

struct RankedCandidate {
  size_t result = 0;  // index into the results
  int rank = 0;       // 1 = best
  double throughput_per_gpu_fraction = 0;
  double relative_to_best = 0;  // 1 for the best
};

struct UnrankedCandidate {
  size_t result = 0;
  std::string reason;
};

struct TrialRanking {
  std::vector<RankedCandidate> ranked;
  std::vector<UnrankedCandidate> unranked;
};

// Ranks by median throughput / GPU fraction, best first (ties keep the candidates' order).
// A candidate is left unranked, with the reason, when throughput was not measured, it has
// no reading after the warmup, its workload failed (non-zero exit by itself), it was
// interrupted, or its GPU fraction is unknown.
TrialRanking RankCandidates(const std::vector<TrialResult>& results);

}  // namespace kraken::profiling
