// KRAKEN_CUPTI_COUNTERS=1: per-kernel hardware counters through CUPTI's range profiler
// (CUDA 12.6+ API), one auto range per kernel, kernel replay. CUPTI then serializes every
// profiled kernel and replays it once per counter pass inside its launch call, so the
// application's kernels run several times slower while profiled: at most
// KRAKEN_CUPTI_COUNTERS_MAX_KERNELS kernels are profiled, then the range profiler stops
// and kernel tracing goes on alone.
//
// How it runs. A CUPTI callback subscription sees every kernel launch of the runtime and
// driver APIs (cudaLaunchKernel, cuLaunchKernel and friends; of a runtime launch, which
// calls the driver's, only the outer call counts). At the first launch on a context the
// profiler is set up for it in the order of CUPTI's range_profiling sample (CUPTI docs,
// "Range Profiling API"): chip name and counter availability first (the availability query
// may fail once a profiling session is active on the context: cupti_profiler_target.h),
// host object and config image for the metrics, then cuptiRangeProfilerEnable, the counter
// data image for a batch of KRAKEN_CUPTI_COUNTERS_BATCH ranges (128), SetConfig and Start. When the context stops being
// profiled (the limit, Finish, its destruction, a refusal) the range profiler is disabled
// and the host object deinitialized: cuptiRangeProfilerDisable frees what CUPTI holds for
// the context. Each launch's exit records its
// correlation id, symbol and call times; when a batch is full, or the limit is reached,
// the batch is decoded and evaluated there (a range boundary, on the launching thread:
// CPU work, no I/O) and handed to the sink, which queues it for the trace writer thread.
// Once counters stop for good (the limit, a step CUPTI refused, Finish) and every context's
// batch is collected, the launch callbacks are turned off (the context-destroy one stays
// on): later launches cost nothing.
// Finish() (at exit, before the trace closes) collects what every context still holds.
// The N-th range of a batch is the N-th launch recorded on that context (kernel replay runs
// one kernel at a time, in launch order) when the batch has as many ranges as launches;
// otherwise its ranges are written unnamed and untied, and counted as unmatched.
// A launch captured into a CUDA graph (a graph node created inside its call: the resource
// callback GRAPHNODE_CREATED) runs nothing and is not recorded, only counted.
// Two things keep that rule true on a GPU, where CUPTI profiles more than the launches:
// - Copies and sets (cudaMemcpy*, cudaMemset*, cuMemcpy*, cuMemsetD*) can run as kernels
//   that take a range without a launch callback (on an H100, a 4 MiB cudaMemsetAsync did;
//   a 4-byte cudaMemset did not). Such a call, while its context is profiled, collects the
//   batch at its entry and starts the profiler again at its exit: its work runs unprofiled.
// - Graph launches (cudaGraphLaunch, cuGraphLaunch): CUPTI profiles the graph's kernels,
//   which no launch callback announces, so every batch with a replay would be untied. They
//   are treated as copies and sets: the graph's kernels run unprofiled and the eager
//   kernels around them keep their pairs.
// - The counter data image holds twice the batch, so that a range nobody announced (a
//   kernel of some other unannounced work) makes the batch unmatched. A full image loses the ranges past its
//   end without saying so (CUPTI 13.0 on the H100: DecodeData reported none dropped), which
//   would shift every later kernel of the batch onto its neighbour's counters.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/cupti/counter_events.h"
#include "collectors/cupti/cupti_functions.h"
#include "collectors/cupti/range_profiler_functions.h"
#include "collectors/cupti/tracer_config.h"

namespace kraken::cupti {

class RangeProfiler {
 public:
  using Sink = std::function<void(std::vector<CounterRange>)>;
  // Says one line (stderr) when counters stop because CUPTI refused a step.
  using Warn = std::function<void(const std::string&)>;

  // Resolves the entry points and subscribes to kernel launches (CUPTI's profiler is
  // initialized at the first launch). nullptr with *error (one sentence) when counters cannot be collected.
  static std::unique_ptr<RangeProfiler> Create(const LoadedCupti& cupti, const TracerConfig& config, Sink sink,
                                               Warn warn, std::string* error);
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Decodes and hands over the ranges every context still holds; later launches are not
  // profiled. Call before the trace is closed.
  void Finish();
  // Called once, from inside the launch that first started the profiler on a context (the
  // tracer registers its at-exit Finish there: after CUPTI's own, so that it runs before
  // CUPTI's clean-up at exit).
  void CallOnceStarted(std::function<void()> on_started);
  CounterSummary Summary() const;

 private:
  struct Launch {
    int64_t correlation_id = -1;
    std::string name;
    int64_t start_ns = 0, end_ns = 0;
  };
  struct ContextState {
    CUcontext context = nullptr;
    int64_t device = -1;
    CUpti_RangeProfiler_Object* object = nullptr;
    CUpti_Profiler_Host_Object* host = nullptr;
    // Kept as long as the host object, as CUPTI's range_profiling sample keeps it: the
    // header does not say whether cuptiProfilerHostInitialize copies it.
    std::vector<uint8_t> availability_image;
    std::vector<uint8_t> config_image;
    std::vector<uint8_t> counter_data;
    std::string chip;
    std::vector<Launch> launches;  // in range order
    int unlaunched_work_calls = 0;  // copies, sets, graph launches in progress: the profiler stopped until they end
    bool running = false;
    bool failed = false;
  };

  RangeProfiler(const LoadedCupti& cupti, const RangeProfilerFunctions& functions, const TracerConfig& config,
                Sink sink, Warn warn);
  static void CUPTIAPI OnCallback(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  // `captured`: at the exit of a launch that created a graph node (stream capture).
  void OnLaunch(const CUpti_CallbackData& data, bool captured);
  // A copy, set or graph launch: its entry collects the context's batch, its exit starts it again.
  void OnUnlaunchedWork(const CUpti_CallbackData& data);
  void OnContextDestroy(CUcontext context);
  // False (and error_ set) when CUPTI refused a step.
  bool Check(CUptiResult result, const char* what);
  // Sets the summary's error (the first one wins) and says it once.
  void Fail(const std::string& error);
  // True once no kernel will be profiled again: the limit reached, a step CUPTI refused
  // (the summary's error), or Finish.
  bool CountersStoppedForGood() const;
  // Called from every path that stops counters or a context's profiling: once counters
  // stopped for good and no context is still profiled, the launch callbacks go off, so
  // that later launches no longer call into the tracer.
  void StopLaunchCallbacksOnceStopped();
  bool SetUp(ContextState* state);
  // False (error set, with the reasons) when CUPTI says the device cannot be profiled.
  bool DeviceSupported(ContextState* state);
  // The host object and config image for the metrics (no context needed).
  bool SetUpHost(ContextState* state);
  // The metrics the chip lacks, after cuptiProfilerHostConfigAddMetrics refused the list.
  std::string UnsupportedMetrics(ContextState* state);
  // Kernel replay replays every pass inside the launch, so Stop reports all of them
  // submitted; anything else would be partial counters: false, error set.
  bool AllPassesSubmitted(const CUpti_RangeProfiler_Stop_Params& stop);
  // Disables the context's range profiler and deinitializes its host object.
  void TearDown(ContextState* state);
  bool ConfigureAndStart(ContextState* state);
  // Stops the context's profiler, decodes and evaluates its ranges, hands them to the sink;
  // starts it again when `restart`, else tears it down.
  void Collect(ContextState* state, bool restart);
  // Collect's first half: stop, decode, evaluate, hand over; the launches cleared.
  void CollectBatch(ContextState* state);
  // The values of the decoded ranges; with `paired`, range i is launches[i].
  std::vector<CounterRange> EvaluateRanges(ContextState* state, size_t ranges, bool paired);
  int64_t Now() const;

  CuptiFunctions cupti_;  // for ErrorText
  RangeProfilerFunctions f_;
  std::vector<const char*> metrics_;
  int64_t batch_ranges_;
  int64_t image_ranges_;  // the counter data image's capacity: twice the batch (see above)
  std::function<void()> on_started_;
  Sink sink_;
  Warn warn_;
  mutable std::mutex mutex_;
  std::map<CUcontext, ContextState> contexts_;
  CounterSummary summary_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  bool launch_callbacks_on_ = false;
  bool finished_ = false;
  bool profiler_initialized_ = false;  // cuptiProfilerInitialize, once, at the first launch
};

}  // namespace kraken::cupti
