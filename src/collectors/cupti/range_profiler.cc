#include "collectors/cupti/range_profiler.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string_view>
#include <utility>

#include "collectors/cupti/api_names.h"
#include "collectors/cupti/kernel_name.h"

namespace kraken::cupti {
namespace {

// The driver and runtime calls that launch one kernel each.
constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,           CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,       CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000};

// The calls of a domain whose work may take ranges without a kernel launch callback
// (range_profiler.h): copies and sets, which may run as kernels, and graph launches, whose
// kernels CUPTI profiles one by one; by callback id.
struct UnlaunchedWorkCalls {
  std::vector<CUpti_CallbackId> cbids;
  std::vector<bool> by_cbid;
};

const UnlaunchedWorkCalls& CallsWithUnlaunchedWork(ApiDomain domain) {
  static const auto make = [](ApiDomain d) {
    UnlaunchedWorkCalls calls;
    for (const ApiName& api : ApiNameTable(d)) {
      const std::string_view name = api.name;
      const bool unlaunched_work = name.starts_with("cudaMemcpy") || name.starts_with("cudaMemset") ||
                                   name.starts_with("cuMemcpy") || name.starts_with("cuMemset") ||
                                   name.starts_with("cudaGraphLaunch") || name.starts_with("cuGraphLaunch");
      if (!unlaunched_work) continue;
      calls.cbids.push_back(api.cbid);
      if (calls.by_cbid.size() <= api.cbid) calls.by_cbid.resize(api.cbid + 1, false);
      calls.by_cbid[api.cbid] = true;
    }
    return calls;
  };
  static const UnlaunchedWorkCalls runtime = make(ApiDomain::kRuntime), driver = make(ApiDomain::kDriver);
  return domain == ApiDomain::kRuntime ? runtime : driver;
}

bool RunsUnlaunchedWork(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const UnlaunchedWorkCalls& calls =
      CallsWithUnlaunchedWork(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ApiDomain::kRuntime : ApiDomain::kDriver);
  return cbid < calls.by_cbid.size() && calls.by_cbid[cbid];
}

// Launch calls in progress on this thread: a runtime launch calls the driver's, and only
// the outermost call is the launch (a kernel's correlation id is that of the call that
// launched it, the runtime's when the application used the runtime).
thread_local int t_launch_depth = 0;
// Set when a graph node is created inside this thread's launch call: the launch was captured
// into a CUDA graph (stream capture, as torch.cuda.graph and torch.compile's CUDA graphs do),
// so no kernel ran and no range will come for it; recorded, it would leave its batch with
// more launches than ranges, and the batch untied.
thread_local bool t_launch_captured = false;

// Turns the launch callbacks (copies, sets and graph launches included) on (stopping at CUPTI's first
// refusal, returned) or off (all of them, whatever CUPTI answers; its first refusal returned).
CUptiResult SetLaunchCallbacks(const RangeProfilerFunctions& f, CUpti_SubscriberHandle subscriber, bool on) {
  CUptiResult first_refusal = CUPTI_SUCCESS;
  using Cbids = std::span<const CUpti_CallbackId>;
  for (auto [domain, cbids] : {std::pair{CUPTI_CB_DOMAIN_DRIVER_API, Cbids(kDriverLaunches)},
                               std::pair{CUPTI_CB_DOMAIN_RUNTIME_API, Cbids(kRuntimeLaunches)},
                               std::pair{CUPTI_CB_DOMAIN_DRIVER_API, Cbids(CallsWithUnlaunchedWork(ApiDomain::kDriver).cbids)},
                               std::pair{CUPTI_CB_DOMAIN_RUNTIME_API, Cbids(CallsWithUnlaunchedWork(ApiDomain::kRuntime).cbids)}})
    for (CUpti_CallbackId cbid : cbids) {
      const CUptiResult r = f.EnableCallback(on ? 1 : 0, subscriber, domain, cbid);
      if (r == CUPTI_SUCCESS) continue;
      if (on) return r;
      if (first_refusal == CUPTI_SUCCESS) first_refusal = r;
    }
  return first_refusal;
}

}  // namespace

std::unique_ptr<RangeProfiler> RangeProfiler::Create(const LoadedCupti& cupti, const TracerConfig& config, Sink sink,
                                                     Warn warn, std::string* error) {
  RangeProfilerFunctions functions;
  if (std::string missing = ResolveRangeProfilerFunctions(cupti.handle, &functions); !missing.empty()) {
    *error = cupti.path + " has no range profiler (CUDA 12.6 or newer is needed; missing " + missing + ")";
    return nullptr;
  }
  std::unique_ptr<RangeProfiler> profiler(
      new RangeProfiler(cupti, functions, config, std::move(sink), std::move(warn)));
  CUpti_SubscriberHandle subscriber = nullptr;
  if (CUptiResult r = functions.Subscribe(&subscriber, &RangeProfiler::OnCallback, profiler.get()); r != CUPTI_SUCCESS) {
    // CUPTI allows one subscriber per process: another tool (or the application) has it.
    *error = "cuptiSubscribe failed: " + cupti.functions.ErrorText(r) + " (another CUPTI tool is subscribed?)";
    return nullptr;
  }
  // Set before any callback can read them (under mutex_, from OnLaunch).
  profiler->subscriber_ = subscriber;
  profiler->launch_callbacks_on_ = true;
  if (CUptiResult r = SetLaunchCallbacks(functions, subscriber, true); r != CUPTI_SUCCESS) {
    *error = "cuptiEnableCallback (kernel launches) failed: " + cupti.functions.ErrorText(r);
    SetLaunchCallbacks(functions, subscriber, false);  // those already on would call a freed profiler
    return nullptr;  // the subscription stays, with nothing to call (process lifetime)
  }
  functions.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
  // Captured launches (t_launch_captured); refused, they are recorded as before and a batch
  // with one is written untied.
  functions.EnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
  return profiler;
}

RangeProfiler::RangeProfiler(const LoadedCupti& cupti, const RangeProfilerFunctions& functions,
                             const TracerConfig& config, Sink sink, Warn warn)
    : cupti_(cupti.functions),
      f_(functions),
      batch_ranges_(std::min(config.counters_batch, config.counters_max_kernels)),
      image_ranges_(2 * batch_ranges_),
      sink_(std::move(sink)),
      warn_(std::move(warn)) {
  for (const char* name : CounterMetricNames()) metrics_.push_back(name);
  summary_.max_kernels = config.counters_max_kernels;
}

int64_t RangeProfiler::Now() const {
  uint64_t now = 0;
  return f_.GetTimestamp(&now) == CUPTI_SUCCESS ? static_cast<int64_t>(now) : 0;
}

void CUPTIAPI RangeProfiler::OnCallback(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                        const void* data) {
  auto* profiler = static_cast<RangeProfiler*>(self);
  // Called inside the application's CUDA calls: nothing may escape into CUPTI's C frames
  // (an allocation failure loses counters, never the application).
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      const auto& call = *static_cast<const CUpti_CallbackData*>(data);
      const bool enter = call.callbackSite == CUPTI_API_ENTER;
      const bool outermost = enter ? ++t_launch_depth == 1 : t_launch_depth-- == 1;
      if (!outermost) return;
      if (RunsUnlaunchedWork(domain, cbid)) {
        profiler->OnUnlaunchedWork(call);
      } else {
        if (enter) t_launch_captured = false;
        profiler->OnLaunch(call, !enter && t_launch_captured);
      }
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED) {
      if (t_launch_depth > 0) t_launch_captured = true;
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      profiler->OnContextDestroy(static_cast<const CUpti_ResourceData*>(data)->context);
    }
  } catch (...) {
  }
}

bool RangeProfiler::Check(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return true;
  Fail(std::string(what) + " failed: " + cupti_.ErrorText(result));
  return false;
}

void RangeProfiler::Fail(const std::string& error) {
  if (!summary_.error.empty()) return;
  summary_.error = error;
  if (!warn_) return;
  const std::string when = summary_.kernels_profiled == 0
                               ? "no per-kernel counters: "
                               : "per-kernel counters stopped after " + std::to_string(summary_.kernels_profiled) +
                                     " kernels: ";
  warn_(when + error + "; kernel tracing goes on");
}

void RangeProfiler::OnLaunch(const CUpti_CallbackData& data, bool captured) {
  // The call's start, before anything can return: a new thread's first runtime launch
  // enters with no context (the runtime binds it inside the call; both threads' first
  // launches on an H200, run 10b) yet runs profiled when another thread started the
  // profiler, and its range would start at 0 (Unix time -56 years in the trace).
  if (data.callbackSite == CUPTI_API_ENTER && data.correlationData != nullptr)
    *data.correlationData = static_cast<uint64_t>(Now());
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_ || data.context == nullptr) return;
  ContextState& state = contexts_[data.context];
  if (data.callbackSite == CUPTI_API_ENTER) {
    // A context still profiled when counters stopped (the limit, or another context's
    // refusal) hands over its batch so far.
    if (state.running && CountersStoppedForGood()) {
      Collect(&state, false);
      StopLaunchCallbacksOnceStopped();
    }
    // During another thread's copy, set or graph launch the profiler is stopped: this kernel
    // goes unprofiled.
    if (CountersStoppedForGood() || state.failed || state.unlaunched_work_calls > 0) return;
    state.context = data.context;
    if (!state.running && !SetUp(&state)) {
      state.failed = true;
      TearDown(&state);
      StopLaunchCallbacksOnceStopped();  // a refusal stops counters for good (summary_.error)
    } else if (on_started_) {
      std::function<void()> once = std::move(on_started_);
      on_started_ = nullptr;
      once();
    }
    // Again after the set-up, so that the first launch's range does not include it.
    if (data.correlationData != nullptr) *data.correlationData = static_cast<uint64_t>(Now());
    return;
  }
  if (!state.running) return;
  if (captured) {
    ++summary_.launches_captured;
    return;
  }
  // CUresult or cudaError_t: 0 is success in both.
  const auto* result = static_cast<const int*>(data.functionReturnValue);
  if (result != nullptr && *result != 0) return;  // nothing ran, no range
  Launch launch;
  launch.correlation_id = data.correlationId;
  launch.name = data.symbolName != nullptr ? data.symbolName : "";
  launch.end_ns = Now();
  launch.start_ns = data.correlationData != nullptr ? static_cast<int64_t>(*data.correlationData) : 0;
  if (launch.start_ns <= 0 || launch.start_ns > launch.end_ns) launch.start_ns = launch.end_ns;  // never unplaced
  state.launches.push_back(std::move(launch));
  ++summary_.kernels_profiled;
  const bool limit = summary_.kernels_profiled >= summary_.max_kernels;
  if (limit) summary_.limit_reached = true;
  if (limit || static_cast<int64_t>(state.launches.size()) >= batch_ranges_) {
    Collect(&state, !limit);  // a refused decode or restart stops counters too
    StopLaunchCallbacksOnceStopped();
  }
}

void RangeProfiler::OnUnlaunchedWork(const CUpti_CallbackData& data) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(data.context);
  if (it == contexts_.end()) return;
  ContextState& state = it->second;
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (!state.running && state.unlaunched_work_calls == 0) return;  // not profiled now
    const std::string_view function = data.functionName != nullptr ? data.functionName : "";
    if (function.find("GraphLaunch") != std::string_view::npos) ++summary_.graph_launches_unprofiled;
    if (state.unlaunched_work_calls++ > 0) return;  // already stopped by another thread's
    CollectBatch(&state);
    if (summary_.error.empty()) return;
    state.failed = true;  // a refused step stops counters for good
    TearDown(&state);
    StopLaunchCallbacksOnceStopped();
    return;
  }
  if (state.unlaunched_work_calls == 0 || --state.unlaunched_work_calls > 0) return;
  if (!CountersStoppedForGood() && ConfigureAndStart(&state)) return;
  TearDown(&state);  // the limit or Finish came meanwhile, or CUPTI refused the restart
  StopLaunchCallbacksOnceStopped();
}

void RangeProfiler::CallOnceStarted(std::function<void()> on_started) {
  std::lock_guard<std::mutex> lock(mutex_);
  on_started_ = std::move(on_started);
}

bool RangeProfiler::CountersStoppedForGood() const {
  return finished_ || summary_.limit_reached || !summary_.error.empty();
}

void RangeProfiler::StopLaunchCallbacksOnceStopped() {
  if (!launch_callbacks_on_ || !CountersStoppedForGood()) return;
  // Another context still profiled is collected at its next launch (OnLaunch's enter), or
  // at its destruction or Finish, each of which comes back here.
  for (const auto& [context, state] : contexts_)
    if (state.running || state.unlaunched_work_calls > 0) return;  // a copy's exit starts it again or tears it down
  // Under mutex_, as CUPTI asks: a subscriber serializes its cuptiEnableCallback calls.
  // Off for good: a thread inside a launch now gets no exit callback, so its
  // t_launch_depth stays behind, which matters only if they came back on. The
  // context-destroy callback stays on (Finish or a destroyed context still tears down).
  launch_callbacks_on_ = false;
  SetLaunchCallbacks(f_, subscriber_, false);
  f_.EnableCallback(0, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
}

void RangeProfiler::OnContextDestroy(CUcontext context) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(context);
  if (it == contexts_.end()) return;
  if (it->second.running) Collect(&it->second, false);
  TearDown(&it->second);  // the range profiler object belongs to the context
  contexts_.erase(it);  // a new context may reuse the handle
  StopLaunchCallbacksOnceStopped();  // it may have been the last one still profiled
}

std::vector<CounterRange> RangeProfiler::EvaluateRanges(ContextState* state, size_t ranges, bool paired) {
  std::vector<CounterRange> out;
  out.reserve(ranges);
  // Unpaired ranges are placed over the batch's launches, without a kernel to tie them to.
  const int64_t batch_start = state->launches.empty() ? Now() : state->launches.front().start_ns;
  const int64_t batch_end = state->launches.empty() ? batch_start : state->launches.back().end_ns;
  for (size_t i = 0; i < ranges; ++i) {
    CounterRange range;
    range.device = state->device;
    if (paired) {
      Launch& launch = state->launches[i];
      range.kernel_name = ReadableKernelName(launch.name.c_str());  // as its kernel record's
      range.correlation_id = launch.correlation_id;
      range.start_ns = launch.start_ns;
      range.end_ns = launch.end_ns;
    } else {
      range.start_ns = batch_start;
      range.end_ns = batch_end;
    }
    range.values.assign(metrics_.size(), 0.0);
    auto evaluate = Zeroed<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    evaluate.pHostObject = state->host;
    evaluate.pCounterDataImage = state->counter_data.data();
    evaluate.counterDataImageSize = state->counter_data.size();
    evaluate.rangeIndex = i;
    evaluate.ppMetricNames = metrics_.data();
    evaluate.numMetrics = metrics_.size();
    evaluate.pMetricValues = range.values.data();
    if (!Check(f_.HostEvaluateToGpuValues(&evaluate), "cuptiProfilerHostEvaluateToGpuValues")) break;
    out.push_back(std::move(range));
  }
  return out;
}

bool RangeProfiler::AllPassesSubmitted(const CUpti_RangeProfiler_Stop_Params& stop) {
  // CUPTI docs, Range Profiling API usage: "For Kernel Replay mode, CUPTI internally replay
  // the kernel so the allPassSubmitted parameter will always be 1".
  if (stop.isAllPassSubmitted != 0) return true;
  Fail("cuptiRangeProfilerStop reported passes still to replay (pass " + std::to_string(stop.passIndex) +
       ") under kernel replay");
  return false;
}

void RangeProfiler::Collect(ContextState* state, bool restart) {
  CollectBatch(state);
  if (restart && summary_.error.empty() && ConfigureAndStart(state)) return;
  if (restart) state->failed = true;
  TearDown(state);
}

void RangeProfiler::CollectBatch(ContextState* state) {
  state->running = false;
  auto stop = Zeroed<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = state->object;
  auto decode = Zeroed<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = state->object;
  auto info = Zeroed<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = state->counter_data.data();
  info.counterDataImageSize = state->counter_data.size();
  const bool stopped = Check(f_.Stop(&stop), "cuptiRangeProfilerStop") && AllPassesSubmitted(stop);
  // Nothing to decode (a copy, set or graph launch right after the batch started): a range there would be
  // no launch's.
  if (stopped && !state->launches.empty() && Check(f_.DecodeData(&decode), "cuptiRangeProfilerDecodeData") &&
      Check(f_.GetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo")) {
    ++summary_.batches;
    summary_.ranges_dropped += static_cast<int64_t>(decode.numOfRangeDropped);
    // Launches without a range (CUPTI dropped them) count as dropped too.
    if (info.numTotalRanges < state->launches.size())
      summary_.ranges_dropped += static_cast<int64_t>(state->launches.size() - info.numTotalRanges);
    // Ranges pair with launches only one to one: a kernel CUPTI profiled without a launch
    // callback (a CUDA graph's) or a dropped range would shift every later pair, so such a
    // batch is written without kernel names and correlation ids rather than misattributed.
    const bool paired = info.numTotalRanges == state->launches.size() && decode.numOfRangeDropped == 0;
    if (!paired) summary_.ranges_unmatched += static_cast<int64_t>(info.numTotalRanges);
    std::vector<CounterRange> ranges = EvaluateRanges(state, info.numTotalRanges, paired);
    if (!ranges.empty()) sink_(std::move(ranges));
  }
  state->launches.clear();
}

void RangeProfiler::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  finished_ = true;
  for (auto& [context, state] : contexts_) {
    if (state.running) Collect(&state, false);
    TearDown(&state);
  }
  // Launches made during exit (other threads, later atexit handlers) cost nothing then.
  StopLaunchCallbacksOnceStopped();
}

CounterSummary RangeProfiler::Summary() const {
  // Without waiting: the trace may be closed by the writer thread after a fatal signal
  // that interrupted a launch callback holding the lock.
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) {
    CounterSummary busy;
    busy.error = "the trace was closed while a batch of counters was being collected";
    return busy;
  }
  return summary_;
}

}  // namespace kraken::cupti
