// The device memory a traced program holds, from CUPTI's memory records (CUPTI_ACTIVITY_KIND_
// MEMORY2, converted in activity_memory.cc): per device, the bytes of the device allocations
// made during the trace and not released yet. Each change becomes a Chrome counter event
// ("ph": "C") of category kCudaMemoryCategory and name kCudaMemoryName on the GPU's track
// (pid = the device), with one arg, "bytes": the device's total after the change. Perfetto
// draws it as a counter track; kraken's Kineto importer reads it into the
// cuda_allocated_bytes series (src/model/metrics.h).
//
// Allocations are kept by address, so a release of an address allocated before the trace
// started (or before a capture window) is recognised and ignored: a total never goes below
// zero, and the memory kept is one entry per live allocation. No CUPTI header is needed.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>

namespace kraken::cupti {

inline constexpr std::string_view kCudaMemoryCategory = "cuda_memory";
inline constexpr std::string_view kCudaMemoryName = "CUDA device memory";
inline constexpr std::string_view kCudaMemoryBytesArg = "bytes";

class DeviceMemoryTotals {
 public:
  struct Change {
    bool known = true;       // false: a release of an address not allocated in the trace
    bool replaced = false;   // an allocation at an address still allocated (its release lost)
    uint32_t device = 0;
    int64_t total = 0;       // the device's outstanding bytes after the change
  };

  // `bytes` allocated at `address` on `device`. An address still held (a release record that
  // never came) is replaced: its old bytes are taken off its device first.
  Change Allocate(uint32_t device, uint64_t address, uint64_t bytes);
  // The release of `address`, on the device it was allocated on; unknown addresses change
  // nothing (Change::known false).
  Change Release(uint64_t address);

  size_t live_allocations() const { return live_.size(); }
  int64_t total(uint32_t device) const;

 private:
  struct Allocation {
    uint32_t device = 0;
    int64_t bytes = 0;
  };
  std::unordered_map<uint64_t, Allocation> live_;  // by address (unique in a process: UVA)
  std::map<uint32_t, int64_t> totals_;             // by device
};

}  // namespace kraken::cupti
