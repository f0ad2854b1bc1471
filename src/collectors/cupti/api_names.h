// CUDA runtime and driver API names by CUPTI callback id, and which of them the tracer
// records by default: the calls that launch GPU work (kernels, graphs, copies, sets), whose
// correlation id links them to that work and whose end gives the launch delay, and the
// calls that wait for the GPU. The id -> name tables are generated at configure time from
// the toolkit's cupti_runtime_cbid.h / cupti_driver_cbid.h (ids only grow between
// releases, so a newer libcupti's extra ids are named through cuptiGetCallbackName).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace kraken::cupti {

enum class ApiDomain : uint8_t { kRuntime, kDriver };

struct ApiName {
  uint32_t cbid;
  std::string_view name;  // as in the header: "cudaLaunchKernel_v7000", "cuLaunchKernel"
};

// The generated tables (cbid_tables.cc), in header order.
std::span<const ApiName> ApiNameTable(ApiDomain domain);

// The name of a call for the trace: runtime names lose CUPTI's version suffix
// ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel", "cudaStreamGetCaptureInfo_v2_v11030" ->
// "cudaStreamGetCaptureInfo_v2"), as Kineto writes them. Empty when the id is unknown.
std::string_view ApiCallName(ApiDomain domain, uint32_t cbid);
std::string_view StripVersionSuffix(std::string_view name);

// A call that enqueues GPU work: kernels, cooperative kernels, graphs, copies, sets.
bool LaunchesGpuWork(std::string_view name);
// A call that makes the host (or a stream) wait for the GPU.
bool WaitsForGpu(std::string_view name);
inline bool RecordedByDefault(std::string_view name) { return LaunchesGpuWork(name) || WaitsForGpu(name); }

}  // namespace kraken::cupti
