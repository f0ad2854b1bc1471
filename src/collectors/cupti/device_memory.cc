#include "collectors/cupti/device_memory.h"

#include <algorithm>
#include <limits>

namespace kraken::cupti {

DeviceMemoryTotals::Change DeviceMemoryTotals::Allocate(uint32_t device, uint64_t address, uint64_t bytes) {
  Change change;
  // A size past int64 is no real allocation (a damaged record): it counts as the largest.
  const auto size = static_cast<int64_t>(std::min<uint64_t>(bytes, std::numeric_limits<int64_t>::max() / 4));
  auto [it, inserted] = live_.try_emplace(address, Allocation{device, size});
  if (!inserted) {
    change.replaced = true;
    int64_t& old_total = totals_[it->second.device];
    old_total = std::max<int64_t>(0, old_total - it->second.bytes);
    it->second = Allocation{device, size};
  }
  int64_t& total = totals_[device];
  total = std::min(total + size, std::numeric_limits<int64_t>::max() / 2);
  change.device = device;
  change.total = total;
  return change;
}

DeviceMemoryTotals::Change DeviceMemoryTotals::Release(uint64_t address) {
  Change change;
  auto it = live_.find(address);
  if (it == live_.end()) {
    change.known = false;
    return change;
  }
  change.device = it->second.device;
  int64_t& total = totals_[change.device];
  total = std::max<int64_t>(0, total - it->second.bytes);
  change.total = total;
  live_.erase(it);
  return change;
}

int64_t DeviceMemoryTotals::total(uint32_t device) const {
  auto it = totals_.find(device);
  return it == totals_.end() ? 0 : it->second;
}

}  // namespace kraken::cupti
