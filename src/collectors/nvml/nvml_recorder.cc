#include "collectors/nvml/nvml_recorder.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "collectors/nvml/nvml_reader.h"

namespace kraken::nvml {
namespace {

int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<Capture> RecordCapture(NvmlApi& api, const RecordOptions& options) {
  if (options.interval_us <= 0) return InvalidInput("the interval must be positive");
  int64_t frames = options.frames > 0 ? options.frames : std::max<int64_t>(1, options.duration_us / options.interval_us);
  if (static_cast<size_t>(frames) > 1'000'000) return InvalidInput("too many frames (at most 1000000)");
  NvmlReader reader(api);
  KRAKEN_RETURN_IF_ERROR(reader.Open());

  Capture capture;
  capture.info = options.info;
  capture.info["source"] = "recorded";
  capture.notes.push_back("Recorded through NVML by kraken record-nvml (the collector's own reader).");
  capture.interval_us = static_cast<uint64_t>(options.interval_us);
  capture.system = reader.system();
  capture.devices = reader.devices();
  capture.topology = reader.topology();
  auto sleep = options.sleep ? options.sleep : [](int64_t us) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  };

  int64_t start = NowUs();
  capture.start_unix_us = static_cast<uint64_t>(start);
  Frame frame;
  for (int64_t n = 0; n < frames; ++n) {
    int64_t due = start + n * options.interval_us;
    int64_t now = NowUs();
    if (options.sleep || now < due) sleep(std::max<int64_t>(0, due - now));
    if (n > 0 && options.stop_requested && options.stop_requested()) break;
    frame.time_us = static_cast<uint64_t>(std::max<int64_t>(0, NowUs() - start));
    reader.ReadFrame(frame);
    Frame& stored = capture.frames.emplace_back(frame);
    // Process samples carry Unix µs; a capture counts from its start. Samples the driver
    // took before the recording began are placed at its start.
    for (DeviceFrame& device : stored.devices)
      for (ProcessUtilization& s : device.process_utilization.value)
        s.time_us = s.time_us > capture.start_unix_us ? s.time_us - capture.start_unix_us : 0;
  }
  return capture;
}

}  // namespace kraken::nvml
