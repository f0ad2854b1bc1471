// NVTX ranges projected onto the GPU, as Kineto's "gpu_user_annotation" events: for each
// range and each (device, stream) that ran work launched inside it (a launching call on
// the range's thread that started within the range), one span from the first such work's
// start to the last one's end. CUPTI delivers markers, API calls and GPU records in
// separate buffers in any order, so the join is done once, at the end of the trace; the
// launches and GPU work it needs are kept compactly up to a cap (docs/kernel-capture.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/cupti/trace_event.h"

namespace kraken::cupti {

class AnnotationProjector {
 public:
  // At most `max_records` launches and as many GPU operations are kept (24 and 32 bytes
  // each); later ones are counted in dropped().
  explicit AnnotationProjector(size_t max_records) : max_records_(max_records) {}

  void AddLaunch(uint32_t correlation, int64_t tid, int64_t start_ns);
  void AddGpuWork(uint32_t correlation, int64_t device, int64_t stream, int64_t start_ns, int64_t end_ns);
  void AddRange(int64_t tid, int64_t start_ns, int64_t end_ns, std::string name);

  // Emits the projections (category gpu_user_annotation, pid = device, tid = stream) and
  // returns how many; frees what was kept.
  int64_t Project(TraceEventSink* sink);
  int64_t dropped() const { return dropped_; }
  size_t ranges() const { return ranges_.size(); }

 private:
  struct Launch {
    uint32_t correlation;
    int64_t tid;
    int64_t start_ns;
  };
  struct GpuWork {
    uint32_t correlation;
    int32_t device;
    int64_t stream;
    int64_t start_ns;
    int64_t end_ns;
  };
  struct Range {
    int64_t tid;
    int64_t start_ns;
    int64_t end_ns;
    std::string name;
  };

  size_t max_records_;
  int64_t dropped_ = 0;
  std::vector<Launch> launches_;
  std::vector<GpuWork> work_;
  std::vector<Range> ranges_;
};

}  // namespace kraken::cupti
