// The callback, range profiler and profiler host entry points of libkraken_cupti_fake.so
// (fake_cupti.cc), for the per-kernel counter tests without a GPU. When a subscriber
// enables the cuLaunchKernel callback, every launch the fake delivers is first announced
// to it (enter, then exit, with the kernel record's correlation id); when the runtime's
// cudaLaunchKernel callback is enabled too, each launch is a runtime call (the kernel
// record's correlation id) around a driver call (another id), as on a GPU. A launch
// announced while the range profiler is started fills one range of the counter data image.
// The values are derived from the launch: fake launch i (correlation id i + 1) executed
// kFakeFadd fadd, kFakeFfmaBase + i ffma, read kFakeDramRead and wrote kFakeDramWrite
// DRAM bytes. KRAKEN_FAKE_CUPTI_UNANNOUNCED=i: launch i fills a range without any callback
// (as a CUDA graph's kernel would). KRAKEN_FAKE_CUPTI_NO_CONTEXT_AT_ENTER=i: launch i's
// outermost call enters with no context (set at its exit), as a new thread's first runtime
// call did on an H200: the runtime binds the primary context inside it.
// KRAKEN_FAKE_CUPTI_GRAPH_LAUNCH=i: before launch i, a cudaGraphLaunch around a cuGraphLaunch
// whose graph fills 3 ranges while the profiler is started (its kernels announced by no
// launch callback, as on a GPU). KRAKEN_FAKE_CUPTI_CAPTURED=i: launch i is captured into a CUDA graph (stream capture): a
// graph node is created inside its call (the resource callback GRAPHNODE_CREATED, when
// enabled) and no range is filled. KRAKEN_FAKE_CUPTI_MEMSET_EVERY=k: before every k-th
// launch (i = k, 2k, ...) a cudaMemsetAsync call around a cuMemsetD8Async call, whose set
// fills a range while the profiler is started, as a 4 MiB set did on an H100 (its values
// those of fake launch kFakeMemsetLaunchBase + i). A range past the image's capacity is
// lost without a word (DecodeData reports none dropped), as on the H100 with CUPTI 13.0.
// KRAKEN_FAKE_CUPTI_REFUSE_DECODE=n: the n-th
// cuptiRangeProfilerDecodeData (counted from 1) fails with CUPTI_ERROR_UNKNOWN, as a
// refused step in the middle of a run. Each launch announced is a line "launch_callbacks
// <correlation id>" of KRAKEN_FAKE_CUPTI_LOG. KRAKEN_FAKE_CUPTI_CALLS_FILE, when set, receives at
// exit how many of these entry points were called ("profiler_calls=N"), how many range
// profilers were still enabled ("enabled_at_exit=N") and how many host objects were still
// initialized ("host_objects_at_exit=N").
//
// Like the real library, each call checks what its header and CUPTI's range profiling
// docs require, so that a tracer that gets one wrong fails its tests rather than its
// first run on a GPU: structSize the header's *_STRUCT_SIZE and pPriv NULL;
// cuptiProfilerInitialize first, and not before the driver finished cuInit (the tracer is
// loaded from inside cuInit; NVIDIA's profiler injection sample initializes the profiler
// only once a context exists); the counter availability not queried while the range
// profiler is enabled on the context (cupti_profiler_target.h: it "may fail, if any
// profiling or sampling session is active"); every cuptiRangeProfiler* call but the
// counter data info on an enabled object (their headers' INVALID_OPERATION "called
// without enabling range profiler"); SetConfig with auto range, kernel replay (docs: only
// supported in auto range), one nesting level (header: "For Auto range mode, this should
// be set to 1"), pass 0 and an initialized counter data image, before Start; Start once
// configured; Stop after Start; DecodeData after Stop ("should be called after
// cuptiRangeProfilerStop"); Enable not twice on a context without Disable.
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string_view>
#include <utility>

#include "collectors/cupti/fake_profiler_params.h"

// fake_cupti_callbacks.cc's subscription (cuptiSubscribe, cuptiEnableCallback): the
// subscriber's callback for (domain, cbid) when it enabled it.
void KrakenFakeSubscriberFor(CUpti_CallbackDomain domain, uint32_t cbid, CUpti_CallbackFunc* callback,
                             void** userdata);
bool KrakenFakeDriverInitialized();
void KrakenFakeLog(const char* what, long long detail);
// fake_profiler_host.cc's host objects.
int64_t KrakenFakeHostCalls();
bool KrakenFakeHostObjectLive(const CUpti_Profiler_Host_Object* object);
size_t KrakenFakeLiveHostObjects();

namespace {

constexpr double kFakeFadd = 67584;           // one per thread of the 264 x 256 grid
constexpr double kFakeFfmaBase = 4325376;     // 64 per thread, plus the launch index
constexpr double kFakeDramRead = 540672;      // 8 bytes per thread
constexpr double kFakeDramWrite = 270336;     // 4 bytes per thread
constexpr double kFakeKernelNs = 1000;        // as long as its kernel record (fake_cupti.cc)
constexpr uint32_t kDriverCorrelationBase = 1'000'000;  // the nested driver calls' ids
constexpr int64_t kFakeMemsetLaunchBase = 500'000;      // KRAKEN_FAKE_CUPTI_MEMSET_EVERY's sets
constexpr int64_t kFakeGraphLaunchBase = 600'000;       // KRAKEN_FAKE_CUPTI_GRAPH_LAUNCH's graph
// The counter availability image: its size and bytes (fake_profiler_host.cc checks them).
constexpr size_t kFakeAvailabilitySize = 16;
constexpr uint8_t kFakeAvailabilityByte = 0xa5;
constexpr uint64_t kImageMagic = 0x6b72616b656e5250;  // "krakenRP"

struct ImageHeader {
  uint64_t magic;
  uint64_t capacity;
  uint64_t count;
};

std::mutex g_mutex;
int64_t g_calls = 0;
bool g_profiler_initialized = false;
bool g_enabled = false;     // cuptiRangeProfilerEnable on the fake's one context
bool g_configured = false;  // SetConfig since Enable
bool g_started = false;
bool g_stopped = false;     // Stop since the last Start (DecodeData may follow)
uint8_t* g_image = nullptr;
size_t g_image_size = 0;
int64_t g_decodes = 0;  // cuptiRangeProfilerDecodeData calls so far
int g_object_storage = 0;
const auto kFakeContext = reinterpret_cast<CUcontext>(0x1000);
const auto kFakeObject = reinterpret_cast<CUpti_RangeProfiler_Object*>(&g_object_storage);

// What a range profiler call on `object` gets when it is not the enabled one. Called with
// g_mutex held.
CUptiResult NotEnabled(const CUpti_RangeProfiler_Object* object) {
  if (object != kFakeObject) return CUPTI_ERROR_INVALID_PARAMETER;
  return g_enabled ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_OPERATION;
}

void CountCall() {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_calls;
}

// The checks an entry point makes before it acts, in the order the fake has always made
// them: the call counted; its parameters well formed (structSize, pPriv, and
// `params_valid` for the rest), else CUPTI_ERROR_INVALID_PARAMETER; then, with g_mutex
// held until the entry point returns, the profiler's state (`state_refusal`: the error
// the state refuses the call with, CUPTI_SUCCESS when it allows it).
class CheckedCall {
 public:
  template <typename Params, typename ParamsValid, typename StateRefusal>
  CheckedCall(const Params* params, size_t struct_size, ParamsValid params_valid, StateRefusal state_refusal) {
    CountCall();
    if (!WellFormed(params, struct_size) || !params_valid(*params)) {
      refusal_ = CUPTI_ERROR_INVALID_PARAMETER;
      return;
    }
    lock_ = std::unique_lock<std::mutex>(g_mutex);
    refusal_ = state_refusal(*params);
  }
  bool refused() const { return refusal_ != CUPTI_SUCCESS; }
  CUptiResult refusal() const { return refusal_; }

 private:
  std::unique_lock<std::mutex> lock_;
  CUptiResult refusal_ = CUPTI_SUCCESS;
};

// Parameter checks beyond structSize and pPriv.
constexpr auto kNoMoreParams = [](const auto&) { return true; };
constexpr auto kOnTheFakeContext = [](const auto& params) { return params.ctx == kFakeContext; };
// State checks: a call on the enabled range profiler object; a call that needs the
// profiler initialized and no range profiler enabled (no profiling session active).
constexpr auto kOnTheEnabledObject = [](const auto& params) { return NotEnabled(params.pRangeProfilerObject); };
constexpr auto kOnAnIdleProfiler = [](const auto&) {
  if (!g_profiler_initialized) return CUPTI_ERROR_NOT_INITIALIZED;
  return g_enabled ? CUPTI_ERROR_INVALID_OPERATION : CUPTI_SUCCESS;
};

ImageHeader* Header(const uint8_t* image) { return reinterpret_cast<ImageHeader*>(const_cast<uint8_t*>(image)); }
uint64_t* Launches(const uint8_t* image) { return reinterpret_cast<uint64_t*>(Header(image) + 1); }

double FakeMetricValue(std::string_view name, uint64_t launch) {
  if (name == "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") return kFakeFadd;
  if (name == "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") return kFakeFfmaBase + static_cast<double>(launch);
  if (name == "dram__bytes_read.sum") return kFakeDramRead;
  if (name == "dram__bytes_write.sum") return kFakeDramWrite;
  if (name == "sm__throughput.avg.pct_of_peak_sustained_elapsed") return 42.5;
  if (name == "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") return 30;
  if (name == "dram__throughput.avg.pct_of_peak_sustained_elapsed") return 20;
  if (name == "gpu__time_duration.sum") return kFakeKernelNs;
  return 0;
}

void RecordRange(uint64_t launch) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_started || g_image == nullptr) return;
  ImageHeader* header = Header(g_image);
  if (header->count < header->capacity) Launches(g_image)[header->count++] = launch;
}

__attribute__((destructor)) void WriteCallsFile() {
  const char* path = std::getenv("KRAKEN_FAKE_CUPTI_CALLS_FILE");
  if (path == nullptr || *path == '\0') return;
  if (FILE* file = std::fopen(path, "w")) {
    std::fprintf(file, "profiler_calls=%lld\nenabled_at_exit=%d\nhost_objects_at_exit=%zu\n",
                 static_cast<long long>(g_calls + KrakenFakeHostCalls()), g_enabled ? 1 : 0,
                 KrakenFakeLiveHostObjects());
    std::fclose(file);
  }
}

}  // namespace

// One API callback, enter then (after `between`) exit, as CUPTI makes it; without
// `context_at_enter` the enter callback has no context yet.
template <typename Between>
void CallAround(CUpti_CallbackFunc callback, void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                const char* function, uint32_t correlation, Between between, bool context_at_enter = true) {
  uint64_t correlation_data = 0;
  int result = 0;  // CUDA_SUCCESS, cudaSuccess
  CUpti_CallbackData data{};
  data.callbackSite = CUPTI_API_ENTER;
  data.functionName = function;
  data.symbolName = "_Z11fake_kernelPfi";
  data.context = context_at_enter ? kFakeContext : nullptr;
  data.correlationId = correlation;
  data.correlationData = &correlation_data;
  data.functionReturnValue = &result;
  callback(userdata, domain, cbid, &data);
  between();
  data.callbackSite = CUPTI_API_EXIT;
  data.context = kFakeContext;
  callback(userdata, domain, cbid, &data);
}

namespace {

// Work before a launch that takes ranges without a launch callback: a runtime call around
// the driver's, each announced when its callback is enabled, its `ranges` filled regardless
// (with the values of fake launches range_base, range_base + 1, ...).
struct UnlaunchedWork {
  CUpti_CallbackId driver_cbid;
  const char* driver_name;
  CUpti_CallbackId runtime_cbid;
  const char* runtime_name;
  int64_t ranges;
};
constexpr UnlaunchedWork kFakeMemset = {CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, "cuMemsetD8Async",
                                        CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync", 1};
constexpr UnlaunchedWork kFakeGraphLaunch = {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, "cuGraphLaunch",
                                             CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch", 3};

void AnnounceUnlaunchedWork(const UnlaunchedWork& work, uint32_t correlation, int64_t range_base) {
  CUpti_CallbackFunc driver = nullptr, runtime = nullptr;
  void *driver_data = nullptr, *runtime_data = nullptr;
  KrakenFakeSubscriberFor(CUPTI_CB_DOMAIN_DRIVER_API, work.driver_cbid, &driver, &driver_data);
  KrakenFakeSubscriberFor(CUPTI_CB_DOMAIN_RUNTIME_API, work.runtime_cbid, &runtime, &runtime_data);
  auto run = [&work, range_base] {
    for (int64_t r = 0; r < work.ranges; ++r) RecordRange(static_cast<uint64_t>(range_base + r));
  };
  auto driver_call = [&] {
    if (driver == nullptr) return run();
    CallAround(driver, driver_data, CUPTI_CB_DOMAIN_DRIVER_API, work.driver_cbid, work.driver_name,
               kDriverCorrelationBase + correlation, run);
  };
  if (runtime == nullptr) return driver_call();
  CallAround(runtime, runtime_data, CUPTI_CB_DOMAIN_RUNTIME_API, work.runtime_cbid, work.runtime_name, correlation,
             driver_call);
}

// Launch i's work inside its driver call: a range, or, when the test captures it into a
// graph (KRAKEN_FAKE_CUPTI_CAPTURED), a graph node created and announced instead.
void RunOrCapture(int64_t i) {
  const char* captured = std::getenv("KRAKEN_FAKE_CUPTI_CAPTURED");
  if (captured == nullptr || *captured == '\0' || std::atoll(captured) != i)
    return RecordRange(static_cast<uint64_t>(i));
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  KrakenFakeSubscriberFor(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, &callback, &userdata);
  KrakenFakeLog("graph_node_created", i + 1);
  if (callback == nullptr) return;
  CUpti_GraphData graph{};
  CUpti_ResourceData data{};
  data.context = kFakeContext;
  data.resourceDescriptor = &graph;
  callback(userdata, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, &data);
}

}  // namespace

// Called by fake_cupti.cc (no lock held) before it delivers launches [first, first + count).
void KrakenFakeAnnounceLaunches(int64_t first, int64_t count) {
  const char* memset_every_text = std::getenv("KRAKEN_FAKE_CUPTI_MEMSET_EVERY");
  const int64_t memset_every = memset_every_text != nullptr ? std::atoll(memset_every_text) : 0;
  for (int64_t i = first; i < first + count; ++i) {
    if (memset_every > 0 && i > 0 && i % memset_every == 0)
      AnnounceUnlaunchedWork(kFakeMemset, static_cast<uint32_t>(kFakeMemsetLaunchBase + i),
                             kFakeMemsetLaunchBase + i);
    if (const char* graph = std::getenv("KRAKEN_FAKE_CUPTI_GRAPH_LAUNCH");
        graph != nullptr && *graph != '\0' && std::atoll(graph) == i)
      AnnounceUnlaunchedWork(kFakeGraphLaunch, static_cast<uint32_t>(kFakeGraphLaunchBase), kFakeGraphLaunchBase);
    CUpti_CallbackFunc callback = nullptr, runtime_callback = nullptr;
    void* userdata = nullptr;
    KrakenFakeSubscriberFor(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &callback, &userdata);
    if (callback == nullptr) return;
    void* runtime_userdata = nullptr;
    KrakenFakeSubscriberFor(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                            &runtime_callback, &runtime_userdata);
    const bool runtime = runtime_callback != nullptr;
    if (const char* unannounced = std::getenv("KRAKEN_FAKE_CUPTI_UNANNOUNCED");
        unannounced != nullptr && std::atoll(unannounced) == i) {
      RecordRange(static_cast<uint64_t>(i));
      continue;
    }
    const auto correlation = static_cast<uint32_t>(i + 1);
    const char* no_context = std::getenv("KRAKEN_FAKE_CUPTI_NO_CONTEXT_AT_ENTER");
    const bool context_at_enter = no_context == nullptr || *no_context == '\0' || std::atoll(no_context) != i;
    KrakenFakeLog("launch_callbacks", correlation);
    auto driver_launch = [&](uint32_t driver_correlation, bool outermost) {
      CallAround(callback, userdata, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                 "cuLaunchKernel", driver_correlation, [i] { RunOrCapture(i); },
                 context_at_enter || !outermost);
    };
    if (runtime) {
      CallAround(
          callback, userdata, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
          "cudaLaunchKernel", correlation, [&] { driver_launch(kDriverCorrelationBase + correlation, false); },
          context_at_enter);
    } else {
      driver_launch(correlation, true);
    }
  }
}

extern "C" {

CUptiResult cuptiGetDeviceId(CUcontext context, uint32_t* device) {
  CountCall();
  if (context != kFakeContext || device == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *device = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params* params) {
  CountCall();
  if (!WellFormed(params, CUpti_Profiler_Initialize_Params_STRUCT_SIZE)) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!KrakenFakeDriverInitialized()) return CUPTI_ERROR_NOT_INITIALIZED;  // not from inside cuInit
  std::lock_guard<std::mutex> lock(g_mutex);
  g_profiler_initialized = true;
  return CUPTI_SUCCESS;
}

// KRAKEN_FAKE_CUPTI_PROFILING=vgpu-disabled: a vGPU whose profiling is off.
CUptiResult cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params* params) {
  CountCall();
  if (!WellFormed(params, CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE) || params->cuDevice != 0 ||
      params->api != CUPTI_PROFILER_RANGE_PROFILING)
    return CUPTI_ERROR_INVALID_PARAMETER;
  const char* profiling = std::getenv("KRAKEN_FAKE_CUPTI_PROFILING");
  const bool vgpu_off = profiling != nullptr && std::string_view(profiling) == "vgpu-disabled";
  params->architecture = params->sli = params->confidentialCompute = params->cmp = params->wsl =
      CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  params->vGpu = vgpu_off ? CUPTI_PROFILER_CONFIGURATION_DISABLED : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  params->isSupported = vgpu_off ? CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED : CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* params) {
  CountCall();
  if (!WellFormed(params, CUpti_Device_GetChipName_Params_STRUCT_SIZE) || params->deviceIndex != 0)
    return CUPTI_ERROR_INVALID_PARAMETER;
  params->pChipName = "GH100";
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* params) {
  const CheckedCall call(params, CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE, kOnTheFakeContext,
                         kOnAnIdleProfiler);
  if (call.refused()) return call.refusal();
  if (params->pCounterAvailabilityImage == nullptr) {
    params->counterAvailabilityImageSize = kFakeAvailabilitySize;
  } else {
    std::memset(params->pCounterAvailabilityImage, kFakeAvailabilityByte,
                std::min<size_t>(params->counterAvailabilityImageSize, kFakeAvailabilitySize));
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* params) {
  CountCall();
  if (!WellFormed(params, CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE) ||
      !KrakenFakeHostObjectLive(params->pHostObject) || params->pMetricValues == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  const ImageHeader* header = Header(params->pCounterDataImage);
  if (header->magic != kImageMagic || params->rangeIndex >= header->count) return CUPTI_ERROR_INVALID_PARAMETER;
  const uint64_t launch = Launches(params->pCounterDataImage)[params->rangeIndex];
  for (size_t m = 0; m < params->numMetrics; ++m) params->pMetricValues[m] = FakeMetricValue(params->ppMetricNames[m], launch);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* params) {
  const CheckedCall call(params, CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, kOnTheFakeContext, kOnAnIdleProfiler);
  if (call.refused()) return call.refusal();
  g_enabled = true;
  params->pRangeProfilerObject = kFakeObject;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params* params) {
  const CheckedCall call(params, CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, kNoMoreParams, kOnTheEnabledObject);
  if (call.refused()) return call.refusal();
  g_enabled = g_configured = g_started = g_stopped = false;
  g_image = nullptr;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* params) {
  const CheckedCall call(params, CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE, kNoMoreParams, kOnTheEnabledObject);
  if (call.refused()) return call.refusal();
  if (g_started) return CUPTI_ERROR_INVALID_OPERATION;
  if (params->range != CUPTI_AutoRange || params->replayMode != CUPTI_KernelReplay || params->pConfig == nullptr ||
      params->configSize == 0 || params->numNestingLevels != 1 || params->minNestingLevel != 1 ||
      params->targetNestingLevel != params->minNestingLevel || params->passIndex != 0 ||
      params->maxRangesPerPass == 0 || params->pCounterDataImage == nullptr ||
      Header(params->pCounterDataImage)->magic != kImageMagic)
    return CUPTI_ERROR_INVALID_PARAMETER;
  g_image = params->pCounterDataImage;
  g_image_size = params->counterDataImageSize;
  g_configured = true;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params* params) {
  const CheckedCall call(params, CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, kNoMoreParams, kOnTheEnabledObject);
  if (call.refused()) return call.refusal();
  if (!g_configured || g_started || g_image == nullptr || Header(g_image)->magic != kImageMagic)
    return CUPTI_ERROR_INVALID_OPERATION;
  g_started = true;
  g_stopped = false;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* params) {
  const CheckedCall call(params, CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE, kNoMoreParams, kOnTheEnabledObject);
  if (call.refused()) return call.refusal();
  if (!g_started) return CUPTI_ERROR_INVALID_OPERATION;
  g_started = false;
  g_stopped = true;
  // Kernel replay (the only mode SetConfig takes) replays every pass inside the launch.
  params->passIndex = 0;
  params->targetNestingLevel = 1;
  params->isAllPassSubmitted = 1;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* params) {
  const CheckedCall call(params, CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE, kNoMoreParams, kOnTheEnabledObject);
  if (call.refused()) return call.refusal();
  if (!g_stopped) return CUPTI_ERROR_INVALID_OPERATION;
  g_stopped = false;
  if (const char* refuse = std::getenv("KRAKEN_FAKE_CUPTI_REFUSE_DECODE");
      refuse != nullptr && std::atoll(refuse) == ++g_decodes)
    return CUPTI_ERROR_UNKNOWN;
  params->numOfRangeDropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* params) {
  const CheckedCall call(params, CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE, kNoMoreParams,
                         kOnTheEnabledObject);
  if (call.refused()) return call.refusal();
  if (params->numMetrics == 0 || params->pMetricNames == nullptr || params->maxNumOfRanges == 0 ||
      params->maxNumRangeTreeNodes < params->maxNumOfRanges)  // header: "must be >= maxNumOfRanges"
    return CUPTI_ERROR_INVALID_PARAMETER;
  params->counterDataSize = sizeof(ImageHeader) + params->maxNumOfRanges * sizeof(uint64_t);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params* params) {
  const auto image_given = [](const CUpti_RangeProfiler_CounterDataImage_Initialize_Params& p) {
    return p.pCounterData != nullptr && p.counterDataSize >= sizeof(ImageHeader);
  };
  const CheckedCall call(params, CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE, image_given,
                         kOnTheEnabledObject);
  if (call.refused()) return call.refusal();
  if (g_started && params->pCounterData == g_image) return CUPTI_ERROR_INVALID_OPERATION;  // in use
  *Header(params->pCounterData) = {kImageMagic, (params->counterDataSize - sizeof(ImageHeader)) / sizeof(uint64_t), 0};
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* params) {
  CountCall();
  if (!WellFormed(params, CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE) ||
      params->pCounterDataImage == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  const ImageHeader* header = Header(params->pCounterDataImage);
  if (header->magic != kImageMagic) return CUPTI_ERROR_INVALID_PARAMETER;
  params->numTotalRanges = header->count;
  return CUPTI_SUCCESS;
}

}  // extern "C"
