// Records an NVML capture: the node's facts and one frame per interval, read through the
// same NvmlReader the sampler uses (so `kraken record-nvml` exercises the collector's own
// calls). Works against the driver or against the replay library.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"
#include "collectors/nvml/capture.h"
#include "collectors/nvml/nvml_library.h"

namespace kraken::nvml {

struct RecordOptions {
  int64_t duration_us = 10'000'000;
  int64_t interval_us = 100'000;
  int64_t frames = 0;  // when > 0, exactly this many frames (duration is ignored)
  // Time between the slow reads (energy, PCIe throughput, process utilization; see
  // NvmlSamplerOptions). A frame in between holds the last energy and PCIe answers and has
  // process_utilization_read = false. 0: every frame reads them.
  int64_t slow_interval_us = 0;
  // Provenance written to [capture] (e.g. library = the path that was loaded).
  std::map<std::string, std::string> info;
  // Waits until the next frame is due; replaced in tests to record without sleeping.
  std::function<void(int64_t wait_us)> sleep;
  // Asked before each frame after the first: true ends the recording early, keeping the
  // frames so far (record-nvml's SIGINT/SIGTERM).
  std::function<bool()> stop_requested;
};

// How long reading the frames took (the recorder's own NVML overhead).
struct RecordStats {
  int64_t frames = 0;
  int64_t slow_frames = 0;  // frames that made the slow reads
  int64_t median_read_us = 0;
  int64_t max_read_us = 0;
  int64_t median_fast_read_us = 0;  // frames without the slow reads; 0 when none
};

// `stats`, when given, receives the read times of the frames.
Result<Capture> RecordCapture(NvmlApi& api, const RecordOptions& options, RecordStats* stats = nullptr);

}  // namespace kraken::nvml
