// A profiling session inside the profiled process (the C API's kraken_session_*, the
// Python WorkloadProfiler): NVML sampled on a thread of its own while the caller runs,
// each pass attributed to a process tree (this process and its descendants, or a pid
// set), phases and steps marked by the caller, and at the end the same run summary and
// stored profile `kraken profile` produces (src/profiling does the sampling).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/session_kernels.h"
#include "base/status.h"
#include "collectors/nvml/nvml_sampler.h"
#include "model/profile.h"
#include "profiling/batch_profile.h"
#include "profiling/process_tree.h"
#include "profiling/run_output.h"
#include "profiling/sampling_loop.h"

namespace kraken {

struct SessionSettings {
  std::vector<int64_t> pids;        // roots of the followed trees; empty = this process
  std::string interval = "100ms";   // between sampling passes
  // Between a GPU's slow NVML reads (energy, PCIe throughput, process utilization), as
  // `kraken profile --slow-interval`; "0" = every pass.
  std::string slow_interval = "1s";
  int64_t samples = 0;              // stop sampling after this many passes (0 = at Stop)
  std::string nvml_library;         // empty = $KRAKEN_NVML_LIBRARY, else libnvidia-ml.so.1
  std::string name;                 // the profile's source; empty = "pid N"
  bool store = true;                // save the profile in the store at Stop
  std::string db;                   // that store (ResolveDbPath)
  std::string out;                  // also write the profile (export JSON) to this file
  // Also the kernels kraken's CUPTI tracer records for this process, merged at Stop; needs
  // the process started with the tracer injected (app/session_kernels.h).
  bool kernel_capture = false;
  // Also send the profile to the central API at Stop (docs/upload.md); "" = no upload.
  std::string upload_to;
  std::string token_file;
  std::string upload_spool;         // "" = the default spool
  std::string upload_retry_for;     // a duration; "" = 30s
};

class ProfilingSession {
 public:
  // Checks the settings, loads NVML and starts sampling. Fails without NVML, for a pid
  // that does not exist, and for kernel_capture in a process started without kraken's CUPTI
  // tracer (Unsupported: the CUDA driver injects it when a process starts, not a session).
  static Result<std::unique_ptr<ProfilingSession>> Start(const SessionSettings& settings);
  ~ProfilingSession();  // stops sampling if it still runs; saves nothing then
  ProfilingSession(const ProfilingSession&) = delete;
  ProfilingSession& operator=(const ProfilingSession&) = delete;

  // Begins phase `name` now, ending the one before. Any thread; fails after Stop.
  Status Mark(const std::string& name);
  // Ends step N (begun at the previous Step, or at the start) and begins N + 1.
  Status Step();
  // Stops sampling, saves the profile where the settings say and returns the run summary
  // document of `kraken profile --json`. Once only. With kernel_capture it first waits one
  // flush period of the tracer, then merges the kernels of the session's time from its
  // trace (the document's "kernels" says what was found, or why nothing was).
  Result<std::string> Stop();
  bool stopped() const;   // Stop was called
  bool finished() const;  // Stop has completed: the profile is whole
  // Sampling passes taken so far (any thread): a caller that asked for `samples` passes
  // can wait for them instead of guessing how long a loaded machine takes.
  int64_t passes_taken() const { return passes_taken_.load(); }

  // After Stop: the whole profile in kraken's export JSON, as `kraken profile --out` writes it.
  Result<std::string> ProfileJson() const;

 private:
  ProfilingSession(SessionSettings settings, int64_t interval_ns, nvml::NvmlSession nvml,
                   std::optional<app::KernelTraceLocation> kernel_trace);
  void SampleUntilStopped();
  bool TargetEnded() const;
  void FinishMarks(TimeNs stop_ns);
  void MergeKernels(const Profile& events);
  Status SaveProfile(profiling::RunReport* report);

  const SessionSettings settings_;
  const int64_t interval_ns_;
  const std::optional<app::KernelTraceLocation> kernel_trace_;  // kernel_capture: the tracer's file
  TimeNs start_ns_ = 0;  // kernels from before the session are not its own
  nvml::NvmlSession nvml_;
  profiling::ProcessTreeTracker tree_;
  profiling::BatchProfileBuilder builder_;  // the sampling thread's until it is joined
  profiling::SamplingResult run_;           // likewise
  std::atomic<bool> stop_requested_{false};
  std::atomic<int64_t> passes_taken_{0};
  std::thread sampler_;

  mutable std::mutex mutex_;  // guards what follows
  bool stopped_ = false;   // Stop was called
  bool finished_ = false;  // ... and the profile is complete
  TimeNs step_start_ns_ = 0;
  std::vector<StepAnnotation> steps_;
  struct Phase {
    std::string name;
    TimeNs start_ns = 0;
    TimeNs end_ns = 0;
  };
  std::optional<Phase> open_phase_;
  std::vector<Phase> phases_;
};

}  // namespace kraken
