// NvmlApi: the NVML entry points kraken calls, as a C++ interface so that tests can inject
// a fake; NvmlLibrary: the implementation that dlopens libnvidia-ml (or the replay library)
// and resolves each entry point to the newest versioned symbol the library exports.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "collectors/nvml/nvml_api.h"

namespace kraken::nvml {

// One method per NVML function (named without the "nvml" prefix and version suffix). A
// method an implementation does not provide answers FUNCTION_NOT_FOUND, as a driver that
// lacks the symbol would; fakes override only what they need.
class NvmlApi {
 public:
  virtual ~NvmlApi() = default;

  virtual nvmlReturn_t Init() { return kMissing; }
  virtual nvmlReturn_t Shutdown() { return kMissing; }
  virtual nvmlReturn_t SystemGetDriverVersion(char*, unsigned int) { return kMissing; }
  virtual nvmlReturn_t SystemGetNvmlVersion(char*, unsigned int) { return kMissing; }
  virtual nvmlReturn_t SystemGetCudaDriverVersion(int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetCount(unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetHandleByIndex(unsigned int, nvmlDevice_t*) { return kMissing; }

  // Facts.
  virtual nvmlReturn_t DeviceGetName(nvmlDevice_t, char*, unsigned int) { return kMissing; }
  virtual nvmlReturn_t DeviceGetUuid(nvmlDevice_t, char*, unsigned int) { return kMissing; }
  virtual nvmlReturn_t DeviceGetPciInfo(nvmlDevice_t, nvmlPciInfo_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMinorNumber(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetArchitecture(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetCudaComputeCapability(nvmlDevice_t, int*, int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetNumGpuCores(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetAttributes(nvmlDevice_t, nvmlDeviceAttributes_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMaxClockInfo(nvmlDevice_t, int, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetEnforcedPowerLimit(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMaxPcieLinkGeneration(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMaxPcieLinkWidth(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMigMode(nvmlDevice_t, unsigned int*, unsigned int*) { return kMissing; }
  // MIG management (`kraken mig apply`).
  virtual nvmlReturn_t DeviceGetGpuInstanceProfileInfo(nvmlDevice_t, unsigned int, nvmlGpuInstanceProfileInfo_t*) {
    return kMissing;
  }
  virtual nvmlReturn_t DeviceGetGpuInstances(nvmlDevice_t, unsigned int, nvmlGpuInstance_t*, unsigned int*) {
    return kMissing;
  }
  virtual nvmlReturn_t DeviceCreateGpuInstance(nvmlDevice_t, unsigned int, nvmlGpuInstance_t*) { return kMissing; }
  virtual nvmlReturn_t GpuInstanceDestroy(nvmlGpuInstance_t) { return kMissing; }
  virtual nvmlReturn_t GpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t, unsigned int, unsigned int,
                                                                nvmlComputeInstanceProfileInfo_t*) {
    return kMissing;
  }
  virtual nvmlReturn_t GpuInstanceGetComputeInstances(nvmlGpuInstance_t, unsigned int, nvmlComputeInstance_t*,
                                                      unsigned int*) {
    return kMissing;
  }
  virtual nvmlReturn_t GpuInstanceCreateComputeInstance(nvmlGpuInstance_t, unsigned int, nvmlComputeInstance_t*) {
    return kMissing;
  }
  virtual nvmlReturn_t ComputeInstanceDestroy(nvmlComputeInstance_t) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMaxMigDeviceCount(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMigDeviceHandleByIndex(nvmlDevice_t, unsigned int, nvmlDevice_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetGpuInstanceId(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetComputeInstanceId(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetCpuAffinity(nvmlDevice_t, unsigned int, unsigned long*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetNumaNodeId(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetTopologyCommonAncestor(nvmlDevice_t, nvmlDevice_t, int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetNvLinkState(nvmlDevice_t, unsigned int, int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetNvLinkRemotePciInfo(nvmlDevice_t, unsigned int, nvmlPciInfo_t*) { return kMissing; }
  virtual nvmlReturn_t GpmQueryDeviceSupport(nvmlDevice_t, nvmlGpmSupport_t*) { return kMissing; }

  // Per-pass values.
  virtual nvmlReturn_t DeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMemoryInfoV2(nvmlDevice_t, nvmlMemory_v2_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetPowerUsage(nvmlDevice_t, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetTotalEnergyConsumption(nvmlDevice_t, unsigned long long*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetClockInfo(nvmlDevice_t, int, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetTemperatureV(nvmlDevice_t, nvmlTemperature_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetTemperature(nvmlDevice_t, int, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetPcieThroughput(nvmlDevice_t, int, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetEncoderUtilization(nvmlDevice_t, unsigned int*, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetDecoderUtilization(nvmlDevice_t, unsigned int*, unsigned int*) { return kMissing; }
  virtual nvmlReturn_t DeviceGetFieldValues(nvmlDevice_t, int, nvmlFieldValue_t*) { return kMissing; }
  // Fills nvmlProcessInfo_t entries whichever version the library has (v1 entries are
  // widened, with no MIG instance ids).
  virtual nvmlReturn_t DeviceGetComputeRunningProcesses(nvmlDevice_t, unsigned int*, nvmlProcessInfo_t*) {
    return kMissing;
  }
  virtual nvmlReturn_t DeviceGetProcessUtilization(nvmlDevice_t, nvmlProcessUtilizationSample_t*, unsigned int*,
                                                   unsigned long long) {
    return kMissing;
  }
  virtual nvmlReturn_t EventSetCreate(nvmlEventSet_t*) { return kMissing; }
  virtual nvmlReturn_t DeviceRegisterEvents(nvmlDevice_t, unsigned long long, nvmlEventSet_t) { return kMissing; }
  virtual nvmlReturn_t EventSetWait(nvmlEventSet_t, nvmlEventData_t*, unsigned int) { return kMissing; }
  virtual nvmlReturn_t EventSetFree(nvmlEventSet_t) { return kMissing; }
  virtual nvmlReturn_t GpmSampleAlloc(nvmlGpmSample_t*) { return kMissing; }
  virtual nvmlReturn_t GpmSampleFree(nvmlGpmSample_t) { return kMissing; }
  virtual nvmlReturn_t GpmSampleGet(nvmlDevice_t, nvmlGpmSample_t) { return kMissing; }
  virtual nvmlReturn_t GpmMigSampleGet(nvmlDevice_t, unsigned int, nvmlGpmSample_t) { return kMissing; }
  virtual nvmlReturn_t GpmMetricsGet(nvmlGpmMetricsGet_t*) { return kMissing; }

  // Why Init failed, when the library can say more than the return code (the replay
  // library names the capture error); empty otherwise.
  virtual std::string InitDiagnostic() { return {}; }

 protected:
  static constexpr nvmlReturn_t kMissing = NVML_ERROR_FUNCTION_NOT_FOUND;
};

// Where the library comes from: an explicit path (--nvml-library), else the environment
// variable KRAKEN_NVML_LIBRARY, else the driver's names.
inline constexpr const char* kNvmlLibraryEnv = "KRAKEN_NVML_LIBRARY";
inline constexpr const char* kDefaultNvmlLibraries[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};

class NvmlLibrary final : public NvmlApi {
 public:
  // The entry points and the symbols tried for each, newest first.
  struct EntryPoint {
    const char* api_name;       // "DeviceGetCount"
    const char* symbols[3];     // {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", nullptr}
    bool required;              // without it the library is not usable as NVML
  };

  // Loads the library; NotFound with a one-line message when there is none.
  static Result<std::unique_ptr<NvmlLibrary>> Load(const std::string& explicit_path = "");
  ~NvmlLibrary() override;
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const std::string& path() const { return path_; }
  // True for kraken's replay library (it exports krakenNvmlReplayLastError): its processes
  // are a capture's, not this machine's.
  bool is_replay() const { return !ResolvedSymbol("ReplayLastError").empty(); }
  // The symbol each entry point resolved to ("" when the library lacks all of them).
  std::string_view ResolvedSymbol(std::string_view api_name) const;
  static const std::vector<EntryPoint>& EntryPoints();

  nvmlReturn_t Init() override;
  nvmlReturn_t Shutdown() override;
  nvmlReturn_t SystemGetDriverVersion(char* v, unsigned int n) override;
  nvmlReturn_t SystemGetNvmlVersion(char* v, unsigned int n) override;
  nvmlReturn_t SystemGetCudaDriverVersion(int* v) override;
  nvmlReturn_t DeviceGetCount(unsigned int* n) override;
  nvmlReturn_t DeviceGetHandleByIndex(unsigned int i, nvmlDevice_t* d) override;
  nvmlReturn_t DeviceGetName(nvmlDevice_t d, char* s, unsigned int n) override;
  nvmlReturn_t DeviceGetUuid(nvmlDevice_t d, char* s, unsigned int n) override;
  nvmlReturn_t DeviceGetPciInfo(nvmlDevice_t d, nvmlPciInfo_t* p) override;
  nvmlReturn_t DeviceGetMinorNumber(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetArchitecture(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetCudaComputeCapability(nvmlDevice_t d, int* major, int* minor) override;
  nvmlReturn_t DeviceGetNumGpuCores(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetAttributes(nvmlDevice_t d, nvmlDeviceAttributes_t* a) override;
  nvmlReturn_t DeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned int* v) override;
  nvmlReturn_t DeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetMigMode(nvmlDevice_t d, unsigned int* current, unsigned int* pending) override;
  nvmlReturn_t DeviceGetGpuInstanceProfileInfo(nvmlDevice_t d, unsigned int profile,
                                               nvmlGpuInstanceProfileInfo_t* info) override;
  nvmlReturn_t DeviceGetGpuInstances(nvmlDevice_t d, unsigned int profile_id, nvmlGpuInstance_t* gis,
                                     unsigned int* n) override;
  nvmlReturn_t DeviceCreateGpuInstance(nvmlDevice_t d, unsigned int profile_id, nvmlGpuInstance_t* gi) override;
  nvmlReturn_t GpuInstanceDestroy(nvmlGpuInstance_t gi) override;
  nvmlReturn_t GpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gi, unsigned int profile,
                                                        unsigned int engine,
                                                        nvmlComputeInstanceProfileInfo_t* info) override;
  nvmlReturn_t GpuInstanceGetComputeInstances(nvmlGpuInstance_t gi, unsigned int profile_id,
                                              nvmlComputeInstance_t* cis, unsigned int* n) override;
  nvmlReturn_t GpuInstanceCreateComputeInstance(nvmlGpuInstance_t gi, unsigned int profile_id,
                                                nvmlComputeInstance_t* ci) override;
  nvmlReturn_t ComputeInstanceDestroy(nvmlComputeInstance_t ci) override;
  nvmlReturn_t DeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int i, nvmlDevice_t* mig) override;
  nvmlReturn_t DeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetCpuAffinity(nvmlDevice_t d, unsigned int n, unsigned long* set) override;
  nvmlReturn_t DeviceGetNumaNodeId(nvmlDevice_t d, unsigned int* v) override;
  nvmlReturn_t DeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int* level) override;
  nvmlReturn_t DeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int* active) override;
  nvmlReturn_t DeviceGetNvLinkRemotePciInfo(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t* p) override;
  nvmlReturn_t GpmQueryDeviceSupport(nvmlDevice_t d, nvmlGpmSupport_t* s) override;
  nvmlReturn_t DeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) override;
  nvmlReturn_t DeviceGetMemoryInfoV2(nvmlDevice_t d, nvmlMemory_v2_t* m) override;
  nvmlReturn_t DeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) override;
  nvmlReturn_t DeviceGetPowerUsage(nvmlDevice_t d, unsigned int* mw) override;
  nvmlReturn_t DeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long* mj) override;
  nvmlReturn_t DeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int* mhz) override;
  nvmlReturn_t DeviceGetTemperatureV(nvmlDevice_t d, nvmlTemperature_t* t) override;
  nvmlReturn_t DeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int* c) override;
  nvmlReturn_t DeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned int* kbps) override;
  nvmlReturn_t DeviceGetEncoderUtilization(nvmlDevice_t d, unsigned int* pct, unsigned int* period) override;
  nvmlReturn_t DeviceGetDecoderUtilization(nvmlDevice_t d, unsigned int* pct, unsigned int* period) override;
  nvmlReturn_t DeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t* v) override;
  nvmlReturn_t DeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int* n, nvmlProcessInfo_t* p) override;
  nvmlReturn_t DeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t* s, unsigned int* n,
                                           unsigned long long last_seen) override;
  nvmlReturn_t EventSetCreate(nvmlEventSet_t* set) override;
  nvmlReturn_t DeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) override;
  nvmlReturn_t EventSetWait(nvmlEventSet_t set, nvmlEventData_t* data, unsigned int timeout_ms) override;
  nvmlReturn_t EventSetFree(nvmlEventSet_t set) override;
  nvmlReturn_t GpmSampleAlloc(nvmlGpmSample_t* s) override;
  nvmlReturn_t GpmSampleFree(nvmlGpmSample_t s) override;
  nvmlReturn_t GpmSampleGet(nvmlDevice_t d, nvmlGpmSample_t s) override;
  nvmlReturn_t GpmMigSampleGet(nvmlDevice_t d, unsigned int gi, nvmlGpmSample_t s) override;
  nvmlReturn_t GpmMetricsGet(nvmlGpmMetricsGet_t* m) override;
  std::string InitDiagnostic() override;

 private:
  NvmlLibrary() = default;
  template <typename Fn, typename... Args>
  nvmlReturn_t Call(size_t entry, Args... args);

  void* handle_ = nullptr;
  std::string path_;
  std::vector<void*> functions_;           // by EntryPoints() index
  std::vector<const char*> resolved_;      // the symbol name found, or nullptr
  std::vector<nvmlProcessInfo_v1_t> v1_processes_;  // scratch for the v1 process call
};

}  // namespace kraken::nvml
