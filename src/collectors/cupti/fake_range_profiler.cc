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
// (as a CUDA graph's kernel would). KRAKEN_FAKE_CUPTI_CALLS_FILE, when set, receives at
// exit how many of these entry points were called ("profiler_calls=N").
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string_view>
#include <utility>

// fake_cupti.cc's subscription (cuptiSubscribe, cuptiEnableCallback): the subscriber's
// callback for (domain, cbid) when it enabled it.
void KrakenFakeSubscriberFor(CUpti_CallbackDomain domain, uint32_t cbid, CUpti_CallbackFunc* callback,
                             void** userdata);

namespace {

constexpr double kFakeFadd = 67584;           // one per thread of the 264 x 256 grid
constexpr double kFakeFfmaBase = 4325376;     // 64 per thread, plus the launch index
constexpr double kFakeDramRead = 540672;      // 8 bytes per thread
constexpr double kFakeDramWrite = 270336;     // 4 bytes per thread
constexpr uint32_t kDriverCorrelationBase = 1'000'000;  // the nested driver calls' ids
constexpr uint64_t kImageMagic = 0x6b72616b656e5250;  // "krakenRP"

struct ImageHeader {
  uint64_t magic;
  uint64_t capacity;
  uint64_t count;
};

std::mutex g_mutex;
int64_t g_calls = 0;
bool g_started = false;
uint8_t* g_image = nullptr;
size_t g_image_size = 0;
size_t g_dropped = 0;
int g_object_storage = 0, g_host_storage = 0;
const auto kFakeContext = reinterpret_cast<CUcontext>(0x1000);

void CountCall() {
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_calls;
}

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
  return 0;
}

void RecordRange(uint64_t launch) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_started || g_image == nullptr) return;
  ImageHeader* header = Header(g_image);
  if (header->count < header->capacity) {
    Launches(g_image)[header->count++] = launch;
  } else {
    ++g_dropped;
  }
}

__attribute__((destructor)) void WriteCallsFile() {
  const char* path = std::getenv("KRAKEN_FAKE_CUPTI_CALLS_FILE");
  if (path == nullptr || *path == '\0') return;
  if (FILE* file = std::fopen(path, "w")) {
    std::fprintf(file, "profiler_calls=%lld\n", static_cast<long long>(g_calls));
    std::fclose(file);
  }
}

}  // namespace

// One API callback, enter then (after `between`) exit, as CUPTI makes it.
template <typename Between>
void CallAround(CUpti_CallbackFunc callback, void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                const char* function, uint32_t correlation, Between between) {
  uint64_t correlation_data = 0;
  int result = 0;  // CUDA_SUCCESS, cudaSuccess
  CUpti_CallbackData data{};
  data.callbackSite = CUPTI_API_ENTER;
  data.functionName = function;
  data.symbolName = "_Z11fake_kernelPfi";
  data.context = kFakeContext;
  data.correlationId = correlation;
  data.correlationData = &correlation_data;
  data.functionReturnValue = &result;
  callback(userdata, domain, cbid, &data);
  between();
  data.callbackSite = CUPTI_API_EXIT;
  callback(userdata, domain, cbid, &data);
}

// Called by fake_cupti.cc (no lock held) before it delivers launches [first, first + count).
void KrakenFakeAnnounceLaunches(int64_t first, int64_t count) {
  for (int64_t i = first; i < first + count; ++i) {
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
    auto driver_launch = [&](uint32_t driver_correlation) {
      CallAround(callback, userdata, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                 "cuLaunchKernel", driver_correlation, [i] { RecordRange(static_cast<uint64_t>(i)); });
    };
    if (runtime) {
      CallAround(callback, userdata, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                 "cudaLaunchKernel", correlation, [&] { driver_launch(kDriverCorrelationBase + correlation); });
    } else {
      driver_launch(correlation);
    }
  }
}

extern "C" {

CUptiResult cuptiGetDeviceId(CUcontext, uint32_t* device) {
  CountCall();
  *device = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) {
  CountCall();
  return CUPTI_SUCCESS;
}

CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* params) {
  CountCall();
  params->pChipName = "GH100";
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* params) {
  CountCall();
  if (params->pCounterAvailabilityImage == nullptr) {
    params->counterAvailabilityImageSize = 16;
  } else {
    std::memset(params->pCounterAvailabilityImage, 0, params->counterAvailabilityImageSize);
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* params) {
  CountCall();
  if (params->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || params->pChipName == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  params->pHostObject = reinterpret_cast<CUpti_Profiler_Host_Object*>(&g_host_storage);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* params) {
  CountCall();
  return params->numMetrics > 0 ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* params) {
  CountCall();
  params->configImageSize = 64;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* params) {
  CountCall();
  std::memset(params->pConfigImage, 0x5a, params->configImageSize);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* params) {
  CountCall();
  params->numOfPasses = 3;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* params) {
  CountCall();
  const ImageHeader* header = Header(params->pCounterDataImage);
  if (header->magic != kImageMagic || params->rangeIndex >= header->count) return CUPTI_ERROR_INVALID_PARAMETER;
  const uint64_t launch = Launches(params->pCounterDataImage)[params->rangeIndex];
  for (size_t m = 0; m < params->numMetrics; ++m) params->pMetricValues[m] = FakeMetricValue(params->ppMetricNames[m], launch);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* params) {
  CountCall();
  params->pRangeProfilerObject = reinterpret_cast<CUpti_RangeProfiler_Object*>(&g_object_storage);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* params) {
  CountCall();
  if (params->range != CUPTI_AutoRange || params->replayMode != CUPTI_KernelReplay || params->pConfig == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_image = params->pCounterDataImage;
  g_image_size = params->counterDataImageSize;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params*) {
  CountCall();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_image == nullptr || Header(g_image)->magic != kImageMagic) return CUPTI_ERROR_INVALID_OPERATION;
  g_started = true;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* params) {
  CountCall();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_started = false;
  params->isAllPassSubmitted = 1;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* params) {
  CountCall();
  std::lock_guard<std::mutex> lock(g_mutex);
  params->numOfRangeDropped = g_dropped;
  g_dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* params) {
  CountCall();
  if (params->numMetrics == 0 || params->maxNumOfRanges == 0) return CUPTI_ERROR_INVALID_PARAMETER;
  params->counterDataSize = sizeof(ImageHeader) + params->maxNumOfRanges * sizeof(uint64_t);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params* params) {
  CountCall();
  if (params->counterDataSize < sizeof(ImageHeader)) return CUPTI_ERROR_INVALID_PARAMETER;
  *Header(params->pCounterData) = {kImageMagic, (params->counterDataSize - sizeof(ImageHeader)) / sizeof(uint64_t), 0};
  return CUPTI_SUCCESS;
}

CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* params) {
  CountCall();
  const ImageHeader* header = Header(params->pCounterDataImage);
  if (header->magic != kImageMagic) return CUPTI_ERROR_INVALID_PARAMETER;
  params->numTotalRanges = header->count;
  return CUPTI_SUCCESS;
}

}  // extern "C"
