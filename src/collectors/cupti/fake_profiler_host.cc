// The profiler host entry points of libkraken_cupti_fake.so (cupti_profiler_host.h): a host
// object per cuptiProfilerHostInitialize for a "GH100", which knows the metrics the tracer
// asks for unless KRAKEN_FAKE_CUPTI_UNSUPPORTED_METRIC names one of them (a chip without
// it). Like the real library, each call checks its parameters: structSize the header's
// *_STRUCT_SIZE, pPriv NULL, a live host object, the config image asked for only after
// metrics were added and with the size reported, the counter availability image handed to
// cuptiProfilerHostInitialize still intact then (kept alive, as CUPTI's range_profiling
// sample keeps it). fake_range_profiler.cc evaluates the
// counter data images with the host objects living here.
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>

#include "collectors/cupti/counter_metric_names.h"
#include "collectors/cupti/fake_profiler_params.h"

namespace {

constexpr size_t kFakeConfigImageSize = 64;
// fake_range_profiler.cc's counter availability image.
constexpr size_t kFakeAvailabilitySize = 16;
constexpr uint8_t kFakeAvailabilityByte = 0xa5;

struct FakeHostObject {
  const uint8_t* availability = nullptr;
  size_t metrics_added = 0;
};

bool AvailabilityIntact(const FakeHostObject& host) {
  if (host.availability == nullptr) return true;  // none given
  for (size_t i = 0; i < kFakeAvailabilitySize; ++i)
    if (host.availability[i] != kFakeAvailabilityByte) return false;
  return true;
}

std::mutex g_host_mutex;
std::map<const CUpti_Profiler_Host_Object*, FakeHostObject> g_hosts;
int64_t g_host_calls = 0;

bool FakeChipHasMetric(const char* name) {
  if (name == nullptr) return false;
  const char* unsupported = std::getenv("KRAKEN_FAKE_CUPTI_UNSUPPORTED_METRIC");
  if (unsupported != nullptr && std::string_view(unsupported) == name) return false;
  // A GH100 (sm_90) knows every metric the tracer asks for, in Nsight Compute's names.
  for (const char* known : kraken::cupti::kCounterMetricNames)
    if (std::string_view(known) == name) return true;
  return false;
}

// The live host object `object`, or nullptr. Called with g_host_mutex held.
FakeHostObject* LiveHost(const CUpti_Profiler_Host_Object* object) {
  auto it = g_hosts.find(object);
  return it == g_hosts.end() ? nullptr : &it->second;
}

// How every host entry point starts: g_host_mutex held until it returns, the call counted.
class HostCall {
 public:
  HostCall() : lock_(g_host_mutex) { ++g_host_calls; }

 private:
  std::lock_guard<std::mutex> lock_;
};

// The live host object that well-formed `params` name; nullptr when they are malformed
// or name none. Called with g_host_mutex held (inside a HostCall).
template <typename Params>
FakeHostObject* NamedHost(const Params* params, size_t struct_size) {
  return WellFormed(params, struct_size) ? LiveHost(params->pHostObject) : nullptr;
}

}  // namespace

// For fake_range_profiler.cc: the calls counted here, whether `object` is a live host
// object (with its availability image intact), and how many are live (at exit: how many
// the tracer did not deinitialize).
int64_t KrakenFakeHostCalls() {
  std::lock_guard<std::mutex> lock(g_host_mutex);
  return g_host_calls;
}
bool KrakenFakeHostObjectLive(const CUpti_Profiler_Host_Object* object) {
  std::lock_guard<std::mutex> lock(g_host_mutex);
  const FakeHostObject* host = LiveHost(object);
  return host != nullptr && AvailabilityIntact(*host);
}
size_t KrakenFakeLiveHostObjects() {
  std::lock_guard<std::mutex> lock(g_host_mutex);
  return g_hosts.size();
}

extern "C" {

CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* params) {
  const HostCall call;
  if (!WellFormed(params, CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE) ||
      params->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || params->pChipName == nullptr ||
      std::string_view(params->pChipName) != "GH100")
    return CUPTI_ERROR_INVALID_PARAMETER;
  auto* object = reinterpret_cast<CUpti_Profiler_Host_Object*>(new char(0));
  g_hosts[object] = FakeHostObject{params->pCounterAvailabilityImage, 0};
  params->pHostObject = object;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params* params) {
  const HostCall call;
  if (NamedHost(params, CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE) == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  g_hosts.erase(params->pHostObject);
  delete reinterpret_cast<char*>(params->pHostObject);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params* params) {
  const HostCall call;
  if (NamedHost(params, CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE) == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (!FakeChipHasMetric(params->pMetricName)) return CUPTI_ERROR_INVALID_METRIC_NAME;
  params->pDescription = "a fake metric";
  params->pHwUnit = "sm";
  params->pDimUnit = "";
  params->metricType = CUPTI_METRIC_TYPE_COUNTER;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* params) {
  const HostCall call;
  FakeHostObject* host = NamedHost(params, CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  if (host == nullptr || params->numMetrics == 0 || params->ppMetricNames == nullptr)
    return CUPTI_ERROR_INVALID_PARAMETER;
  for (size_t i = 0; i < params->numMetrics; ++i)
    if (!FakeChipHasMetric(params->ppMetricNames[i])) return CUPTI_ERROR_INVALID_METRIC_NAME;
  host->metrics_added += params->numMetrics;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* params) {
  const HostCall call;
  FakeHostObject* host = NamedHost(params, CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  if (host == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (host->metrics_added == 0) return CUPTI_ERROR_INVALID_OPERATION;  // nothing to schedule
  params->configImageSize = kFakeConfigImageSize;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* params) {
  const HostCall call;
  FakeHostObject* host = NamedHost(params, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  if (host == nullptr || params->pConfigImage == nullptr || params->configImageSize != kFakeConfigImageSize)
    return CUPTI_ERROR_INVALID_PARAMETER;
  if (host->metrics_added == 0) return CUPTI_ERROR_INVALID_OPERATION;
  if (!AvailabilityIntact(*host)) return CUPTI_ERROR_INVALID_PARAMETER;
  std::memset(params->pConfigImage, 0x5a, params->configImageSize);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* params) {
  const HostCall call;
  if (!WellFormed(params, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE) || params->pConfigImage == nullptr ||
      params->configImageSize != kFakeConfigImageSize || params->pConfigImage[0] != 0x5a)
    return CUPTI_ERROR_INVALID_PARAMETER;
  params->numOfPasses = 3;
  return CUPTI_SUCCESS;
}

}  // extern "C"
