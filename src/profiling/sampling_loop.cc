#include "profiling/sampling_loop.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace kraken::profiling {
namespace {

using Clock = std::chrono::steady_clock;
// How often the loop looks at the child and the signal flag while it waits for the next
// pass: the end of a short command is noticed within this, not within a whole interval.
constexpr std::chrono::milliseconds kPollSlice{10};

}  // namespace

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kTargetEnded: return "the profiled process tree ended";
    case StopReason::kDuration: return "the duration elapsed";
    case StopReason::kPasses: return "the pass limit was reached";
    case StopReason::kSignal: return "a stop signal arrived";
    case StopReason::kSinkFailed: return "storing a pass failed";
    case StopReason::kRequested: return "the session was stopped";
  }
  return "unknown";
}

SamplingResult RunSampling(nvml::NvmlSampler& sampler, ProcessTreeTracker& tree, const SamplingOptions& options,
                           const SamplingHooks& hooks) {
  SamplingResult result;
  SampleBatch batch, kept;
  size_t gpu_count = sampler.devices().size();
  std::vector<bool> answered(gpu_count, false);
  const Clock::time_point start = Clock::now();
  const auto interval = std::chrono::nanoseconds(std::max<int64_t>(options.interval_ns, 1));
  for (int64_t pass = 0;; ++pass) {
    if (hooks.stop_requested && hooks.stop_requested()) {
      result.reason = StopReason::kSignal;
      return result;
    }
    // The first pass is taken whatever the tree does: a command that ends at once (before
    // a loaded machine gives kraken the CPU back after the fork) still has its GPUs' state
    // at its start, so that whether a run has samples does not depend on the scheduler.
    if (pass > 0 && hooks.target_ended && hooks.target_ended()) {
      result.reason = StopReason::kTargetEnded;
      return result;
    }
    if (options.duration_ns > 0 && Clock::now() - start >= std::chrono::nanoseconds(options.duration_ns)) {
      result.reason = StopReason::kDuration;
      return result;
    }
    const std::set<int64_t>& members = tree.Refresh();
    sampler.Sample(batch);
    const nvml::Frame& frame = sampler.last_frame();
    // A pass that did not ask (process utilization is on the slow cadence) is no answer:
    // its processes are not idle, their samples come with the next read.
    for (size_t g = 0; g < gpu_count; ++g) {
      bool asked = g < frame.devices.size() && frame.devices[g].process_utilization_read;
      nvmlReturn_t rc = asked ? frame.devices[g].process_utilization.rc : NVML_ERROR_UNKNOWN;
      answered[g] = rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_FOUND;
    }
    result.passes.push_back(AttributePass(batch, members, gpu_count, answered, &kept));
    for (size_t g = 0; g < gpu_count && g < frame.devices.size(); ++g)
      result.passes.back().gpus[g].process_util_skipped = !frame.devices[g].process_utilization_read;
    if (hooks.on_pass) {
      Status status = hooks.on_pass(kept, result.passes.back());
      if (!status.ok()) {
        result.reason = StopReason::kSinkFailed;
        result.sink_status = status;
        return result;
      }
    }
    // The pass limit ends the run as soon as its last pass is in, not one interval later:
    // a session's owner that waits for the passes (kraken_session_passes) and stops it
    // then gets the same stop reason as `kraken profile --samples`.
    if (options.max_passes > 0 && pass + 1 >= options.max_passes) {
      result.reason = StopReason::kPasses;
      return result;
    }
    // Deadlines on the start's grid: a slow pass shortens the next wait, it does not
    // shift every later pass.
    const Clock::time_point next = start + interval * (pass + 1);
    while (Clock::now() < next) {
      if ((hooks.stop_requested && hooks.stop_requested()) || (hooks.target_ended && hooks.target_ended())) break;
      std::this_thread::sleep_for(std::min<Clock::duration>(kPollSlice, next - Clock::now()));
    }
  }
}

}  // namespace kraken::profiling
