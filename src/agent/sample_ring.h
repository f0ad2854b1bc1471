// The agent's memory of recent sampling: the newest passes, up to a fixed count (the
// ring's duration / the sampling interval). Slots are reused, so that once the ring is
// full, keeping a pass copies into buffers that already have their capacity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/sample_batch.h"

namespace kraken::agent {

class SampleRing {
 public:
  explicit SampleRing(size_t capacity);  // at least 1

  // Copies `batch` into the oldest slot; source names are kept for kOther values only.
  void Push(const SampleBatch& batch);
  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  // 0 = the newest; requires i < size().
  const SampleBatch& FromNewest(size_t i) const;
  const SampleBatch* Latest() const { return size_ == 0 ? nullptr : &FromNewest(0); }

 private:
  std::vector<SampleBatch> slots_;
  size_t next_ = 0;  // slot the next Push writes
  size_t size_ = 0;
};

// The ring's passes with time_ns > since_ns, oldest first, the newest `max_passes` of them,
// as JSON: {"hostname", "committed_profiles", "passes": [{"time_ns", "samples": [{"gpu_index",
// "gpu_instance_id", "metric", "value"}]}]}. GPU- and MIG-level canonical metrics only (no
// per-process values). Serves `kraken serve --agent`'s live view.
void RenderRingJson(const SampleRing& ring, int64_t since_ns, size_t max_passes, const std::string& hostname,
                    int64_t committed_profiles, std::string& out);

// How many passes `ring_ns` holds at `interval_ns` (at least 1, at most 100000).
size_t RingCapacity(int64_t ring_ns, int64_t interval_ns);

}  // namespace kraken::agent
