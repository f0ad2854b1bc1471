// One candidate of `kraken trial`: start the command on it (CUDA_VISIBLE_DEVICES = its UUID),
// read throughput from its output or file, let it warm up, sample it with the profiling
// loop for the duration, stop its whole tree and summarize (docs/trial.md).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collectors/nvml/nvml_sampler.h"
#include "profiling/trial_result.h"

namespace kraken::profiling {

struct TrialOptions {
  std::vector<std::string> command;
  int64_t warmup_ns = 10'000'000'000;
  int64_t duration_ns = 60'000'000'000;
  int64_t interval_ns = 100'000'000;
  int64_t grace_ns = 10'000'000'000;  // SIGTERM -> SIGKILL
  std::optional<ThroughputPattern> pattern;
  std::string throughput_file;  // "" = none
};

struct TrialHooks {
  std::function<bool()> stop_requested;  // SIGINT/SIGTERM to kraken
  // Each line the workload printed (stdout and stderr), on the reader thread.
  std::function<void(std::string_view line)> on_output;
  // Each sampled pass, without other users' processes (for the stored profile).
  std::function<Status(const SampleBatch& kept)> on_pass;
};

struct CandidateRun {
  TrialResult result;
  bool tree_gone = true;  // false: a process survived SIGKILL; the trial must not go on
};

// Fails only when the command cannot be executed or a pass could not be stored.
Result<CandidateRun> RunTrialCandidate(nvml::NvmlSampler& sampler, const TrialCandidate& candidate,
                                       const TrialOptions& options, const TrialHooks& hooks);

}  // namespace kraken::profiling
