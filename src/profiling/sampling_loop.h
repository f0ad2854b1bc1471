// The sampling loop of `kraken profile`: one NVML pass every interval, the process tree
// refreshed before each, each pass attributed to the tree and handed to a sink (the store,
// the --out accumulator), until the tree ends, the duration or pass limit is reached, or a
// stop signal arrives.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "base/status.h"
#include "collectors/nvml/nvml_sampler.h"
#include "profiling/process_tree.h"
#include "profiling/tree_attribution.h"

namespace kraken::profiling {

struct SamplingOptions {
  int64_t interval_ns = 100'000'000;
  int64_t duration_ns = 0;  // 0 = no limit
  int64_t max_passes = 0;   // 0 = no limit
};

// kRequested: a profiling session was stopped by its owner (app/profile_session.h).
enum class StopReason { kTargetEnded, kDuration, kPasses, kSignal, kSinkFailed, kRequested };
const char* StopReasonName(StopReason reason);

struct SamplingHooks {
  // Polled between passes and while waiting: true once the profiled tree has ended.
  std::function<bool()> target_ended;
  // Polled likewise: true once a stop was requested (SIGINT/SIGTERM).
  std::function<bool()> stop_requested;
  // Receives each pass: the batch without other users' processes, and its attribution.
  std::function<Status(const SampleBatch& kept, const PassRecord& pass)> on_pass;
};

struct SamplingResult {
  StopReason reason = StopReason::kTargetEnded;
  std::vector<PassRecord> passes;
  Status sink_status;  // set when reason == kSinkFailed
};

SamplingResult RunSampling(nvml::NvmlSampler& sampler, ProcessTreeTracker& tree, const SamplingOptions& options,
                           const SamplingHooks& hooks);

}  // namespace kraken::profiling
