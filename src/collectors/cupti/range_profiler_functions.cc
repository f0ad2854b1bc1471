#include "collectors/cupti/range_profiler_functions.h"

#include <dlfcn.h>

namespace kraken::cupti {
namespace {

template <typename Fn>
void ResolveOptional(void* handle, const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*fn == nullptr) *missing += (missing->empty() ? "" : ", ") + std::string(name);
}

}  // namespace

std::string ResolveRangeProfilerFunctions(void* handle, RangeProfilerFunctions* f) {
  std::string missing;
  ResolveOptional(handle, "cuptiSubscribe", &f->Subscribe, &missing);
  ResolveOptional(handle, "cuptiEnableCallback", &f->EnableCallback, &missing);
  ResolveOptional(handle, "cuptiGetDeviceId", &f->GetDeviceId, &missing);
  ResolveOptional(handle, "cuptiGetTimestamp", &f->GetTimestamp, &missing);
  ResolveOptional(handle, "cuptiProfilerInitialize", &f->ProfilerInitialize, &missing);
  ResolveOptional(handle, "cuptiDeviceGetChipName", &f->DeviceGetChipName, &missing);
  ResolveOptional(handle, "cuptiProfilerGetCounterAvailability", &f->GetCounterAvailability, &missing);
  ResolveOptional(handle, "cuptiProfilerHostInitialize", &f->HostInitialize, &missing);
  ResolveOptional(handle, "cuptiProfilerHostConfigAddMetrics", &f->HostConfigAddMetrics, &missing);
  ResolveOptional(handle, "cuptiProfilerHostGetConfigImageSize", &f->HostGetConfigImageSize, &missing);
  ResolveOptional(handle, "cuptiProfilerHostGetConfigImage", &f->HostGetConfigImage, &missing);
  ResolveOptional(handle, "cuptiProfilerHostGetNumOfPasses", &f->HostGetNumOfPasses, &missing);
  ResolveOptional(handle, "cuptiProfilerHostEvaluateToGpuValues", &f->HostEvaluateToGpuValues, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerEnable", &f->Enable, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerSetConfig", &f->SetConfig, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerStart", &f->Start, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerStop", &f->Stop, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerDecodeData", &f->DecodeData, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerGetCounterDataSize", &f->GetCounterDataSize, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerCounterDataImageInitialize", &f->CounterDataImageInitialize, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerGetCounterDataInfo", &f->GetCounterDataInfo, &missing);
  ResolveOptional(handle, "cuptiProfilerHostGetMetricProperties", &f->HostGetMetricProperties, &missing);
  ResolveOptional(handle, "cuptiProfilerHostDeinitialize", &f->HostDeinitialize, &missing);
  ResolveOptional(handle, "cuptiRangeProfilerDisable", &f->Disable, &missing);
  ResolveOptional(handle, "cuptiProfilerDeviceSupported", &f->DeviceSupported, &missing);
  return missing;
}

}  // namespace kraken::cupti
