#include "collectors/cupti/api_names.h"

#include <algorithm>
#include <array>

namespace kraken::cupti {

std::string_view StripVersionSuffix(std::string_view name) {
  size_t underscore = name.rfind("_v");
  if (underscore == std::string_view::npos) return name;
  std::string_view digits = name.substr(underscore + 2);
  // CUPTI's suffix is the CUDA version that introduced the entry point (3020, 11030);
  // "_v2" of cudaStreamGetCaptureInfo_v2 is part of the real name.
  if (digits.size() < 4 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return name;
  return name.substr(0, underscore);
}

std::string_view ApiCallName(ApiDomain domain, uint32_t cbid) {
  std::span<const ApiName> table = ApiNameTable(domain);
  // The tables are in id order in the headers; a linear fallback keeps this correct if not.
  auto it = std::lower_bound(table.begin(), table.end(), cbid,
                             [](const ApiName& entry, uint32_t id) { return entry.cbid < id; });
  if (it == table.end() || it->cbid != cbid) {
    it = std::find_if(table.begin(), table.end(), [cbid](const ApiName& entry) { return entry.cbid == cbid; });
    if (it == table.end()) return {};
  }
  return domain == ApiDomain::kRuntime ? StripVersionSuffix(it->name) : it->name;
}

namespace {

bool StartsWithAny(std::string_view name, std::span<const std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [name](std::string_view p) { return name.starts_with(p); });
}

}  // namespace

bool LaunchesGpuWork(std::string_view name) {
  static constexpr std::array<std::string_view, 10> kPrefixes = {
      "cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset", "cudaMemPrefetch",
      "cuLaunch",   "cuGraphLaunch",   "cuMemcpy",   "cuMemset",   "cuMemPrefetch"};
  // cudaLaunchHostFunc runs on the host; it is still ordered on a stream, so it is kept.
  return StartsWithAny(name, kPrefixes);
}

bool WaitsForGpu(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kPrefixes = {
      "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent",
      "cudaEventRecord",       "cudaThreadSynchronize", "cuCtxSynchronize",     "cuStreamSynchronize",
      "cuEventSynchronize",    "cuStreamWaitEvent",     "cuEventRecord",        "cuStreamWaitValue"};
  return StartsWithAny(name, kPrefixes);
}

}  // namespace kraken::cupti
