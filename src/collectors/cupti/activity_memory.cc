// ActivityConverter's memory records (CUPTI_ACTIVITY_KIND_MEMORY2): the running total of each
// device's outstanding device allocations (device_memory.h), written as a counter event at
// every change.
#include <cstddef>

#include "collectors/cupti/activity_converter.h"

namespace kraken::cupti {
namespace {

// The fields read below sit where they did in CUpti_ActivityMemory3 (CUDA 11.6, the oldest
// libcupti kraken reads) and in CUpti_ActivityMemory2 (CUDA 11.2) before it, so a record from
// any of them reads the same through the CUDA 13 struct.
#define KRAKEN_SAME_MEMORY_FIELD(Old, field) \
  static_assert(offsetof(CUpti_ActivityMemory4, field) == offsetof(Old, field), "CUpti_ActivityMemory4::" #field " moved since " #Old)
#define KRAKEN_SAME_MEMORY_FIELDS(Old)                       \
  KRAKEN_SAME_MEMORY_FIELD(Old, memoryOperationType);        \
  KRAKEN_SAME_MEMORY_FIELD(Old, memoryKind);                 \
  KRAKEN_SAME_MEMORY_FIELD(Old, address);                    \
  KRAKEN_SAME_MEMORY_FIELD(Old, bytes);                      \
  KRAKEN_SAME_MEMORY_FIELD(Old, timestamp);                  \
  KRAKEN_SAME_MEMORY_FIELD(Old, deviceId);                   \
  KRAKEN_SAME_MEMORY_FIELD(Old, memoryPoolConfig.memoryPoolType)
KRAKEN_SAME_MEMORY_FIELDS(CUpti_ActivityMemory3);
KRAKEN_SAME_MEMORY_FIELDS(CUpti_ActivityMemory2);
#undef KRAKEN_SAME_MEMORY_FIELDS
#undef KRAKEN_SAME_MEMORY_FIELD

}  // namespace

void ActivityConverter::ConvertMemory(const CUpti_ActivityMemory4& m) {
  // Pinned host, managed and static memory is not the device memory a MIG slice must hold.
  if (m.memoryKind != CUPTI_ACTIVITY_MEMORY_KIND_DEVICE) {
    ++counts_.memory_other_kinds;
    return;
  }
  // cudaMallocAsync: a sub-allocation of a stream-ordered pool, whose own size CUPTI reports
  // in other records (CUPTI_ACTIVITY_KIND_MEMORY_POOL): not counted, rather than counted wrong.
  if (m.memoryPoolConfig.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID) {
    ++counts_.memory_pool_records;
    return;
  }
  DeviceMemoryTotals::Change change;
  if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION) {
    change = memory_.Allocate(m.deviceId, m.address, m.bytes);
    ++counts_.memory_allocations;
    if (change.replaced) ++counts_.memory_reused_addresses;
  } else if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
    change = memory_.Release(m.address);
    if (!change.known) {
      ++counts_.memory_unknown_releases;  // allocated before the trace (or its window) began
      return;
    }
    ++counts_.memory_releases;
  } else {
    ++counts_.other_records;
    return;
  }
  // The total is kept; only its point on the timeline is missing.
  if (m.timestamp == 0) {
    ++counts_.without_timestamps;
    return;
  }
  NoteDevice(change.device, m.timestamp);
  TraceEvent& e = Begin('C', kCudaMemoryCategory, kCudaMemoryName, change.device, 0, m.timestamp, m.timestamp);
  e.AddInt(kCudaMemoryBytesArg, change.total);
  sink_->Emit(e);
}

}  // namespace kraken::cupti
