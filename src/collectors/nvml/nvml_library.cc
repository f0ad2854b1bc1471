#include "collectors/nvml/nvml_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace kraken::nvml {
namespace {

// Indices into EntryPoints(); keep both lists in the same order.
enum Entry : size_t {
  kInit, kShutdown, kSystemGetDriverVersion, kSystemGetNvmlVersion, kSystemGetCudaDriverVersion, kDeviceGetCount,
  kDeviceGetHandleByIndex, kDeviceGetName, kDeviceGetUuid, kDeviceGetPciInfo, kDeviceGetMinorNumber,
  kDeviceGetArchitecture, kDeviceGetCudaComputeCapability, kDeviceGetNumGpuCores, kDeviceGetAttributes,
  kDeviceGetMaxClockInfo, kDeviceGetEnforcedPowerLimit, kDeviceGetMaxPcieLinkGeneration, kDeviceGetMaxPcieLinkWidth,
  kDeviceGetMigMode, kDeviceGetMaxMigDeviceCount, kDeviceGetMigDeviceHandleByIndex, kDeviceGetGpuInstanceId,
  kDeviceGetComputeInstanceId, kDeviceGetCpuAffinity, kDeviceGetNumaNodeId, kDeviceGetTopologyCommonAncestor,
  kDeviceGetNvLinkState, kDeviceGetNvLinkRemotePciInfo, kGpmQueryDeviceSupport, kDeviceGetUtilizationRates,
  kDeviceGetMemoryInfoV2, kDeviceGetMemoryInfo, kDeviceGetPowerUsage, kDeviceGetTotalEnergyConsumption,
  kDeviceGetClockInfo, kDeviceGetTemperatureV, kDeviceGetTemperature, kDeviceGetPcieThroughput,
  kDeviceGetEncoderUtilization, kDeviceGetDecoderUtilization, kDeviceGetFieldValues,
  kDeviceGetComputeRunningProcesses, kDeviceGetProcessUtilization, kEventSetCreate, kDeviceRegisterEvents,
  kEventSetWait, kEventSetFree, kGpmSampleAlloc, kGpmSampleFree, kGpmSampleGet, kGpmMigSampleGet, kGpmMetricsGet,
  kReplayLastError, kDeviceGetGpuInstanceProfileInfo, kDeviceGetGpuInstances, kDeviceCreateGpuInstance,
  kGpuInstanceDestroy, kGpuInstanceGetComputeInstanceProfileInfo, kGpuInstanceGetComputeInstances,
  kGpuInstanceCreateComputeInstance, kComputeInstanceDestroy, kEntryCount
};

const char* kComputeProcessesV1 = "nvmlDeviceGetComputeRunningProcesses";

}  // namespace

const std::vector<NvmlLibrary::EntryPoint>& NvmlLibrary::EntryPoints() {
  static const std::vector<EntryPoint> entries = {
      {"Init", {"nvmlInit_v2", "nvmlInit"}, true},
      {"Shutdown", {"nvmlShutdown"}, true},
      {"SystemGetDriverVersion", {"nvmlSystemGetDriverVersion"}, false},
      {"SystemGetNvmlVersion", {"nvmlSystemGetNVMLVersion"}, false},
      {"SystemGetCudaDriverVersion", {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"}, false},
      {"DeviceGetCount", {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, true},
      {"DeviceGetHandleByIndex", {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}, true},
      {"DeviceGetName", {"nvmlDeviceGetName"}, false},
      {"DeviceGetUuid", {"nvmlDeviceGetUUID"}, false},
      {"DeviceGetPciInfo", {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"}, false},
      {"DeviceGetMinorNumber", {"nvmlDeviceGetMinorNumber"}, false},
      {"DeviceGetArchitecture", {"nvmlDeviceGetArchitecture"}, false},
      {"DeviceGetCudaComputeCapability", {"nvmlDeviceGetCudaComputeCapability"}, false},
      {"DeviceGetNumGpuCores", {"nvmlDeviceGetNumGpuCores"}, false},
      {"DeviceGetAttributes", {"nvmlDeviceGetAttributes_v2", "nvmlDeviceGetAttributes"}, false},
      {"DeviceGetMaxClockInfo", {"nvmlDeviceGetMaxClockInfo"}, false},
      {"DeviceGetEnforcedPowerLimit", {"nvmlDeviceGetEnforcedPowerLimit"}, false},
      {"DeviceGetMaxPcieLinkGeneration", {"nvmlDeviceGetMaxPcieLinkGeneration"}, false},
      {"DeviceGetMaxPcieLinkWidth", {"nvmlDeviceGetMaxPcieLinkWidth"}, false},
      {"DeviceGetMigMode", {"nvmlDeviceGetMigMode"}, false},
      {"DeviceGetMaxMigDeviceCount", {"nvmlDeviceGetMaxMigDeviceCount"}, false},
      {"DeviceGetMigDeviceHandleByIndex", {"nvmlDeviceGetMigDeviceHandleByIndex"}, false},
      {"DeviceGetGpuInstanceId", {"nvmlDeviceGetGpuInstanceId"}, false},
      {"DeviceGetComputeInstanceId", {"nvmlDeviceGetComputeInstanceId"}, false},
      {"DeviceGetCpuAffinity", {"nvmlDeviceGetCpuAffinity"}, false},
      {"DeviceGetNumaNodeId", {"nvmlDeviceGetNumaNodeId"}, false},
      {"DeviceGetTopologyCommonAncestor", {"nvmlDeviceGetTopologyCommonAncestor"}, false},
      {"DeviceGetNvLinkState", {"nvmlDeviceGetNvLinkState"}, false},
      {"DeviceGetNvLinkRemotePciInfo", {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"}, false},
      {"GpmQueryDeviceSupport", {"nvmlGpmQueryDeviceSupport"}, false},
      {"DeviceGetUtilizationRates", {"nvmlDeviceGetUtilizationRates"}, false},
      {"DeviceGetMemoryInfoV2", {"nvmlDeviceGetMemoryInfo_v2"}, false},
      {"DeviceGetMemoryInfo", {"nvmlDeviceGetMemoryInfo"}, false},
      {"DeviceGetPowerUsage", {"nvmlDeviceGetPowerUsage"}, false},
      {"DeviceGetTotalEnergyConsumption", {"nvmlDeviceGetTotalEnergyConsumption"}, false},
      {"DeviceGetClockInfo", {"nvmlDeviceGetClockInfo"}, false},
      {"DeviceGetTemperatureV", {"nvmlDeviceGetTemperatureV"}, false},
      {"DeviceGetTemperature", {"nvmlDeviceGetTemperature"}, false},
      {"DeviceGetPcieThroughput", {"nvmlDeviceGetPcieThroughput"}, false},
      {"DeviceGetEncoderUtilization", {"nvmlDeviceGetEncoderUtilization"}, false},
      {"DeviceGetDecoderUtilization", {"nvmlDeviceGetDecoderUtilization"}, false},
      {"DeviceGetFieldValues", {"nvmlDeviceGetFieldValues"}, false},
      {"DeviceGetComputeRunningProcesses",
       {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2", kComputeProcessesV1},
       false},
      {"DeviceGetProcessUtilization", {"nvmlDeviceGetProcessUtilization"}, false},
      {"EventSetCreate", {"nvmlEventSetCreate"}, false},
      {"DeviceRegisterEvents", {"nvmlDeviceRegisterEvents"}, false},
      {"EventSetWait", {"nvmlEventSetWait_v2", "nvmlEventSetWait"}, false},
      {"EventSetFree", {"nvmlEventSetFree"}, false},
      {"GpmSampleAlloc", {"nvmlGpmSampleAlloc"}, false},
      {"GpmSampleFree", {"nvmlGpmSampleFree"}, false},
      {"GpmSampleGet", {"nvmlGpmSampleGet"}, false},
      {"GpmMigSampleGet", {"nvmlGpmMigSampleGet"}, false},
      {"GpmMetricsGet", {"nvmlGpmMetricsGet"}, false},
      // Only kraken's replay library has it: why its nvmlInit failed.
      {"ReplayLastError", {"krakenNvmlReplayLastError"}, false},
      // MIG management (`kraken mig apply`).
      {"DeviceGetGpuInstanceProfileInfo", {"nvmlDeviceGetGpuInstanceProfileInfo"}, false},
      {"DeviceGetGpuInstances", {"nvmlDeviceGetGpuInstances"}, false},
      {"DeviceCreateGpuInstance", {"nvmlDeviceCreateGpuInstance"}, false},
      {"GpuInstanceDestroy", {"nvmlGpuInstanceDestroy"}, false},
      {"GpuInstanceGetComputeInstanceProfileInfo", {"nvmlGpuInstanceGetComputeInstanceProfileInfo"}, false},
      {"GpuInstanceGetComputeInstances", {"nvmlGpuInstanceGetComputeInstances"}, false},
      {"GpuInstanceCreateComputeInstance", {"nvmlGpuInstanceCreateComputeInstance"}, false},
      {"ComputeInstanceDestroy", {"nvmlComputeInstanceDestroy"}, false},
  };
  return entries;
}

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& explicit_path) {
  static_assert(kEntryCount > 0);
  if (EntryPoints().size() != kEntryCount) return Status(StatusCode::kInternal, "NVML entry point table out of sync");
  std::vector<std::string> candidates;
  const char* env = std::getenv(kNvmlLibraryEnv);
  if (!explicit_path.empty()) {
    candidates.push_back(explicit_path);
  } else if (env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    for (const char* name : kDefaultNvmlLibraries) candidates.push_back(name);
  }
  std::string first_error;
  void* handle = nullptr;
  std::string path;
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL: the driver's symbols must not interpose on anything else in kraken.
    handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      path = candidate;
      break;
    }
    const char* error = ::dlerror();
    if (first_error.empty() && error != nullptr) first_error = error;
  }
  if (handle == nullptr) {
    if (!explicit_path.empty() || (env != nullptr && *env != '\0'))
      return NotFound("cannot load the NVML library " + candidates[0] + " (" + first_error + ")");
    return NotFound(
        "libnvidia-ml.so.1 was not found: no NVIDIA driver on this machine? Point kraken at the library with "
        "--nvml-library PATH or KRAKEN_NVML_LIBRARY=PATH");
  }
  std::unique_ptr<NvmlLibrary> library(new NvmlLibrary());
  library->handle_ = handle;
  library->path_ = path;
  library->functions_.assign(kEntryCount, nullptr);
  library->resolved_.assign(kEntryCount, nullptr);
  for (size_t i = 0; i < kEntryCount; ++i) {
    const EntryPoint& entry = EntryPoints()[i];
    for (const char* symbol : entry.symbols) {
      if (symbol == nullptr) break;
      void* function = ::dlsym(handle, symbol);
      if (function == nullptr) continue;
      library->functions_[i] = function;
      library->resolved_[i] = symbol;
      break;
    }
    if (library->functions_[i] == nullptr && entry.required)
      return InvalidInput(path + " is not an NVML library: it lacks " + entry.symbols[0]);
  }
  return library;
}

NvmlLibrary::~NvmlLibrary() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::string_view NvmlLibrary::ResolvedSymbol(std::string_view api_name) const {
  for (size_t i = 0; i < kEntryCount; ++i)
    if (api_name == EntryPoints()[i].api_name) return resolved_[i] != nullptr ? resolved_[i] : "";
  return "";
}

template <typename Fn, typename... Args>
nvmlReturn_t NvmlLibrary::Call(size_t entry, Args... args) {
  void* function = functions_[entry];
  if (function == nullptr) return NVML_ERROR_FUNCTION_NOT_FOUND;
  return reinterpret_cast<Fn>(function)(args...);
}

using Dev = nvmlDevice_t;
using Uint = unsigned int;

using Gi = nvmlGpuInstance_t;
using Ci = nvmlComputeInstance_t;

nvmlReturn_t NvmlLibrary::DeviceGetGpuInstanceProfileInfo(nvmlDevice_t d, unsigned int profile,
                                                          nvmlGpuInstanceProfileInfo_t* info) {
  return Call<nvmlReturn_t (*)(Dev, Uint, nvmlGpuInstanceProfileInfo_t*)>(kDeviceGetGpuInstanceProfileInfo, d,
                                                                          profile, info);
}
nvmlReturn_t NvmlLibrary::DeviceGetGpuInstances(nvmlDevice_t d, unsigned int profile_id, nvmlGpuInstance_t* gis,
                                                unsigned int* n) {
  return Call<nvmlReturn_t (*)(Dev, Uint, Gi*, Uint*)>(kDeviceGetGpuInstances, d, profile_id, gis, n);
}
nvmlReturn_t NvmlLibrary::DeviceCreateGpuInstance(nvmlDevice_t d, unsigned int profile_id, nvmlGpuInstance_t* gi) {
  return Call<nvmlReturn_t (*)(Dev, Uint, Gi*)>(kDeviceCreateGpuInstance, d, profile_id, gi);
}
nvmlReturn_t NvmlLibrary::GpuInstanceDestroy(nvmlGpuInstance_t gi) {
  return Call<nvmlReturn_t (*)(Gi)>(kGpuInstanceDestroy, gi);
}
nvmlReturn_t NvmlLibrary::GpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gi, unsigned int profile,
                                                                   unsigned int engine,
                                                                   nvmlComputeInstanceProfileInfo_t* info) {
  return Call<nvmlReturn_t (*)(Gi, Uint, Uint, nvmlComputeInstanceProfileInfo_t*)>(
      kGpuInstanceGetComputeInstanceProfileInfo, gi, profile, engine, info);
}
nvmlReturn_t NvmlLibrary::GpuInstanceGetComputeInstances(nvmlGpuInstance_t gi, unsigned int profile_id,
                                                         nvmlComputeInstance_t* cis, unsigned int* n) {
  return Call<nvmlReturn_t (*)(Gi, Uint, Ci*, Uint*)>(kGpuInstanceGetComputeInstances, gi, profile_id, cis, n);
}
nvmlReturn_t NvmlLibrary::GpuInstanceCreateComputeInstance(nvmlGpuInstance_t gi, unsigned int profile_id,
                                                           nvmlComputeInstance_t* ci) {
  return Call<nvmlReturn_t (*)(Gi, Uint, Ci*)>(kGpuInstanceCreateComputeInstance, gi, profile_id, ci);
}
nvmlReturn_t NvmlLibrary::ComputeInstanceDestroy(nvmlComputeInstance_t ci) {
  return Call<nvmlReturn_t (*)(Ci)>(kComputeInstanceDestroy, ci);
}

nvmlReturn_t NvmlLibrary::Init() { return Call<nvmlReturn_t (*)()>(kInit); }
nvmlReturn_t NvmlLibrary::Shutdown() { return Call<nvmlReturn_t (*)()>(kShutdown); }
nvmlReturn_t NvmlLibrary::SystemGetDriverVersion(char* v, Uint n) {
  return Call<nvmlReturn_t (*)(char*, Uint)>(kSystemGetDriverVersion, v, n);
}
nvmlReturn_t NvmlLibrary::SystemGetNvmlVersion(char* v, Uint n) {
  return Call<nvmlReturn_t (*)(char*, Uint)>(kSystemGetNvmlVersion, v, n);
}
nvmlReturn_t NvmlLibrary::SystemGetCudaDriverVersion(int* v) {
  return Call<nvmlReturn_t (*)(int*)>(kSystemGetCudaDriverVersion, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetCount(Uint* n) { return Call<nvmlReturn_t (*)(Uint*)>(kDeviceGetCount, n); }
nvmlReturn_t NvmlLibrary::DeviceGetHandleByIndex(Uint i, Dev* d) {
  return Call<nvmlReturn_t (*)(Uint, Dev*)>(kDeviceGetHandleByIndex, i, d);
}
nvmlReturn_t NvmlLibrary::DeviceGetName(Dev d, char* s, Uint n) {
  return Call<nvmlReturn_t (*)(Dev, char*, Uint)>(kDeviceGetName, d, s, n);
}
nvmlReturn_t NvmlLibrary::DeviceGetUuid(Dev d, char* s, Uint n) {
  return Call<nvmlReturn_t (*)(Dev, char*, Uint)>(kDeviceGetUuid, d, s, n);
}
nvmlReturn_t NvmlLibrary::DeviceGetPciInfo(Dev d, nvmlPciInfo_t* p) {
  // The v1 call fills only the legacy part; clear the rest so busId reads as empty.
  if (p == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  std::memset(p, 0, sizeof(*p));
  return Call<nvmlReturn_t (*)(Dev, nvmlPciInfo_t*)>(kDeviceGetPciInfo, d, p);
}
nvmlReturn_t NvmlLibrary::DeviceGetMinorNumber(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetMinorNumber, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetArchitecture(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetArchitecture, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetCudaComputeCapability(Dev d, int* major, int* minor) {
  return Call<nvmlReturn_t (*)(Dev, int*, int*)>(kDeviceGetCudaComputeCapability, d, major, minor);
}
nvmlReturn_t NvmlLibrary::DeviceGetNumGpuCores(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetNumGpuCores, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetAttributes(Dev d, nvmlDeviceAttributes_t* a) {
  return Call<nvmlReturn_t (*)(Dev, nvmlDeviceAttributes_t*)>(kDeviceGetAttributes, d, a);
}
nvmlReturn_t NvmlLibrary::DeviceGetMaxClockInfo(Dev d, int type, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, int, Uint*)>(kDeviceGetMaxClockInfo, d, type, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetEnforcedPowerLimit(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetEnforcedPowerLimit, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetMaxPcieLinkGeneration(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetMaxPcieLinkGeneration, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetMaxPcieLinkWidth(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetMaxPcieLinkWidth, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetMigMode(Dev d, Uint* current, Uint* pending) {
  return Call<nvmlReturn_t (*)(Dev, Uint*, Uint*)>(kDeviceGetMigMode, d, current, pending);
}
nvmlReturn_t NvmlLibrary::DeviceGetMaxMigDeviceCount(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetMaxMigDeviceCount, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetMigDeviceHandleByIndex(Dev d, Uint i, Dev* mig) {
  return Call<nvmlReturn_t (*)(Dev, Uint, Dev*)>(kDeviceGetMigDeviceHandleByIndex, d, i, mig);
}
nvmlReturn_t NvmlLibrary::DeviceGetGpuInstanceId(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetGpuInstanceId, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetComputeInstanceId(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetComputeInstanceId, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetCpuAffinity(Dev d, Uint n, unsigned long* set) {
  return Call<nvmlReturn_t (*)(Dev, Uint, unsigned long*)>(kDeviceGetCpuAffinity, d, n, set);
}
nvmlReturn_t NvmlLibrary::DeviceGetNumaNodeId(Dev d, Uint* v) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetNumaNodeId, d, v);
}
nvmlReturn_t NvmlLibrary::DeviceGetTopologyCommonAncestor(Dev a, Dev b, int* level) {
  return Call<nvmlReturn_t (*)(Dev, Dev, int*)>(kDeviceGetTopologyCommonAncestor, a, b, level);
}
nvmlReturn_t NvmlLibrary::DeviceGetNvLinkState(Dev d, Uint link, int* active) {
  return Call<nvmlReturn_t (*)(Dev, Uint, int*)>(kDeviceGetNvLinkState, d, link, active);
}
nvmlReturn_t NvmlLibrary::DeviceGetNvLinkRemotePciInfo(Dev d, Uint link, nvmlPciInfo_t* p) {
  if (p == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  std::memset(p, 0, sizeof(*p));
  return Call<nvmlReturn_t (*)(Dev, Uint, nvmlPciInfo_t*)>(kDeviceGetNvLinkRemotePciInfo, d, link, p);
}
nvmlReturn_t NvmlLibrary::GpmQueryDeviceSupport(Dev d, nvmlGpmSupport_t* s) {
  return Call<nvmlReturn_t (*)(Dev, nvmlGpmSupport_t*)>(kGpmQueryDeviceSupport, d, s);
}
nvmlReturn_t NvmlLibrary::DeviceGetUtilizationRates(Dev d, nvmlUtilization_t* u) {
  return Call<nvmlReturn_t (*)(Dev, nvmlUtilization_t*)>(kDeviceGetUtilizationRates, d, u);
}
nvmlReturn_t NvmlLibrary::DeviceGetMemoryInfoV2(Dev d, nvmlMemory_v2_t* m) {
  return Call<nvmlReturn_t (*)(Dev, nvmlMemory_v2_t*)>(kDeviceGetMemoryInfoV2, d, m);
}
nvmlReturn_t NvmlLibrary::DeviceGetMemoryInfo(Dev d, nvmlMemory_t* m) {
  return Call<nvmlReturn_t (*)(Dev, nvmlMemory_t*)>(kDeviceGetMemoryInfo, d, m);
}
nvmlReturn_t NvmlLibrary::DeviceGetPowerUsage(Dev d, Uint* mw) {
  return Call<nvmlReturn_t (*)(Dev, Uint*)>(kDeviceGetPowerUsage, d, mw);
}
nvmlReturn_t NvmlLibrary::DeviceGetTotalEnergyConsumption(Dev d, unsigned long long* mj) {
  return Call<nvmlReturn_t (*)(Dev, unsigned long long*)>(kDeviceGetTotalEnergyConsumption, d, mj);
}
nvmlReturn_t NvmlLibrary::DeviceGetClockInfo(Dev d, int type, Uint* mhz) {
  return Call<nvmlReturn_t (*)(Dev, int, Uint*)>(kDeviceGetClockInfo, d, type, mhz);
}
nvmlReturn_t NvmlLibrary::DeviceGetTemperatureV(Dev d, nvmlTemperature_t* t) {
  return Call<nvmlReturn_t (*)(Dev, nvmlTemperature_t*)>(kDeviceGetTemperatureV, d, t);
}
nvmlReturn_t NvmlLibrary::DeviceGetTemperature(Dev d, int sensor, Uint* c) {
  return Call<nvmlReturn_t (*)(Dev, int, Uint*)>(kDeviceGetTemperature, d, sensor, c);
}
nvmlReturn_t NvmlLibrary::DeviceGetPcieThroughput(Dev d, int counter, Uint* kbps) {
  return Call<nvmlReturn_t (*)(Dev, int, Uint*)>(kDeviceGetPcieThroughput, d, counter, kbps);
}
nvmlReturn_t NvmlLibrary::DeviceGetEncoderUtilization(Dev d, Uint* pct, Uint* period) {
  return Call<nvmlReturn_t (*)(Dev, Uint*, Uint*)>(kDeviceGetEncoderUtilization, d, pct, period);
}
nvmlReturn_t NvmlLibrary::DeviceGetDecoderUtilization(Dev d, Uint* pct, Uint* period) {
  return Call<nvmlReturn_t (*)(Dev, Uint*, Uint*)>(kDeviceGetDecoderUtilization, d, pct, period);
}
nvmlReturn_t NvmlLibrary::DeviceGetFieldValues(Dev d, int n, nvmlFieldValue_t* v) {
  return Call<nvmlReturn_t (*)(Dev, int, nvmlFieldValue_t*)>(kDeviceGetFieldValues, d, n, v);
}

nvmlReturn_t NvmlLibrary::DeviceGetComputeRunningProcesses(Dev d, Uint* n, nvmlProcessInfo_t* p) {
  const char* symbol = resolved_[kDeviceGetComputeRunningProcesses];
  if (symbol == nullptr || std::strcmp(symbol, kComputeProcessesV1) != 0)
    return Call<nvmlReturn_t (*)(Dev, Uint*, nvmlProcessInfo_t*)>(kDeviceGetComputeRunningProcesses, d, n, p);
  // Only the v1 function: read its 16-byte entries and widen them.
  if (n == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  v1_processes_.resize(*n);
  nvmlReturn_t rc = Call<nvmlReturn_t (*)(Dev, Uint*, nvmlProcessInfo_v1_t*)>(
      kDeviceGetComputeRunningProcesses, d, n, *n > 0 ? v1_processes_.data() : nullptr);
  if (rc == NVML_SUCCESS && p != nullptr)
    for (Uint i = 0; i < *n && i < v1_processes_.size(); ++i)
      p[i] = nvmlProcessInfo_t{v1_processes_[i].pid, v1_processes_[i].usedGpuMemory, NVML_NO_INSTANCE_ID,
                               NVML_NO_INSTANCE_ID};
  return rc;
}

nvmlReturn_t NvmlLibrary::DeviceGetProcessUtilization(Dev d, nvmlProcessUtilizationSample_t* s, Uint* n,
                                                      unsigned long long last_seen) {
  return Call<nvmlReturn_t (*)(Dev, nvmlProcessUtilizationSample_t*, Uint*, unsigned long long)>(
      kDeviceGetProcessUtilization, d, s, n, last_seen);
}
nvmlReturn_t NvmlLibrary::EventSetCreate(nvmlEventSet_t* set) {
  return Call<nvmlReturn_t (*)(nvmlEventSet_t*)>(kEventSetCreate, set);
}
nvmlReturn_t NvmlLibrary::DeviceRegisterEvents(Dev d, unsigned long long types, nvmlEventSet_t set) {
  return Call<nvmlReturn_t (*)(Dev, unsigned long long, nvmlEventSet_t)>(kDeviceRegisterEvents, d, types, set);
}
nvmlReturn_t NvmlLibrary::EventSetWait(nvmlEventSet_t set, nvmlEventData_t* data, Uint timeout_ms) {
  return Call<nvmlReturn_t (*)(nvmlEventSet_t, nvmlEventData_t*, Uint)>(kEventSetWait, set, data, timeout_ms);
}
nvmlReturn_t NvmlLibrary::EventSetFree(nvmlEventSet_t set) {
  return Call<nvmlReturn_t (*)(nvmlEventSet_t)>(kEventSetFree, set);
}
nvmlReturn_t NvmlLibrary::GpmSampleAlloc(nvmlGpmSample_t* s) {
  return Call<nvmlReturn_t (*)(nvmlGpmSample_t*)>(kGpmSampleAlloc, s);
}
nvmlReturn_t NvmlLibrary::GpmSampleFree(nvmlGpmSample_t s) {
  return Call<nvmlReturn_t (*)(nvmlGpmSample_t)>(kGpmSampleFree, s);
}
nvmlReturn_t NvmlLibrary::GpmSampleGet(Dev d, nvmlGpmSample_t s) {
  return Call<nvmlReturn_t (*)(Dev, nvmlGpmSample_t)>(kGpmSampleGet, d, s);
}
nvmlReturn_t NvmlLibrary::GpmMigSampleGet(Dev d, Uint gi, nvmlGpmSample_t s) {
  return Call<nvmlReturn_t (*)(Dev, Uint, nvmlGpmSample_t)>(kGpmMigSampleGet, d, gi, s);
}
nvmlReturn_t NvmlLibrary::GpmMetricsGet(nvmlGpmMetricsGet_t* m) {
  return Call<nvmlReturn_t (*)(nvmlGpmMetricsGet_t*)>(kGpmMetricsGet, m);
}

std::string NvmlLibrary::InitDiagnostic() {
  void* function = functions_[kReplayLastError];
  if (function == nullptr) return {};
  const char* text = reinterpret_cast<const char* (*)()>(function)();
  return text != nullptr ? std::string(text) : std::string();
}

}  // namespace kraken::nvml
