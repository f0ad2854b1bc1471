// The entry points of CUPTI's callback, range profiler and profiler host APIs (CUDA 12.6+)
// that the per-kernel counters use, resolved with dlsym from the libcupti the tracer
// loaded: optional, so a libcupti without them still traces kernels.
#pragma once

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstddef>
#include <cstring>
#include <string>

namespace kraken::cupti {

struct RangeProfilerFunctions {
  decltype(&cuptiSubscribe) Subscribe = nullptr;
  decltype(&cuptiEnableCallback) EnableCallback = nullptr;
  decltype(&cuptiGetDeviceId) GetDeviceId = nullptr;
  decltype(&cuptiGetTimestamp) GetTimestamp = nullptr;
  decltype(&cuptiProfilerInitialize) ProfilerInitialize = nullptr;
  decltype(&cuptiDeviceGetChipName) DeviceGetChipName = nullptr;
  decltype(&cuptiProfilerDeviceSupported) DeviceSupported = nullptr;
  decltype(&cuptiProfilerGetCounterAvailability) GetCounterAvailability = nullptr;
  decltype(&cuptiProfilerHostInitialize) HostInitialize = nullptr;
  decltype(&cuptiProfilerHostConfigAddMetrics) HostConfigAddMetrics = nullptr;
  decltype(&cuptiProfilerHostGetConfigImageSize) HostGetConfigImageSize = nullptr;
  decltype(&cuptiProfilerHostGetConfigImage) HostGetConfigImage = nullptr;
  decltype(&cuptiProfilerHostGetNumOfPasses) HostGetNumOfPasses = nullptr;
  decltype(&cuptiProfilerHostEvaluateToGpuValues) HostEvaluateToGpuValues = nullptr;
  decltype(&cuptiProfilerHostGetMetricProperties) HostGetMetricProperties = nullptr;
  decltype(&cuptiProfilerHostDeinitialize) HostDeinitialize = nullptr;
  decltype(&cuptiRangeProfilerEnable) Enable = nullptr;
  decltype(&cuptiRangeProfilerDisable) Disable = nullptr;
  decltype(&cuptiRangeProfilerSetConfig) SetConfig = nullptr;
  decltype(&cuptiRangeProfilerStart) Start = nullptr;
  decltype(&cuptiRangeProfilerStop) Stop = nullptr;
  decltype(&cuptiRangeProfilerDecodeData) DecodeData = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataSize) GetCounterDataSize = nullptr;
  decltype(&cuptiRangeProfilerCounterDataImageInitialize) CounterDataImageInitialize = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataInfo) GetCounterDataInfo = nullptr;
};

// Resolves every entry point from `handle`; "" when all are there, else the names of the
// missing ones ("cuptiRangeProfilerEnable, ...").
std::string ResolveRangeProfilerFunctions(void* handle, RangeProfilerFunctions* functions);

// A parameter struct of these entry points as their headers require it: all zero (pPriv
// NULL) but structSize, the header's *_STRUCT_SIZE.
template <typename Params>
Params Zeroed(size_t struct_size) {
  Params params;
  std::memset(&params, 0, sizeof(params));
  params.structSize = struct_size;
  return params;
}

}  // namespace kraken::cupti
