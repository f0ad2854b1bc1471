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

int64_t Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
  return values[values.size() / 2];
}

void Summarize(const std::vector<int64_t>& read_us, const std::vector<int64_t>& fast_read_us, RecordStats& stats) {
  stats.frames = static_cast<int64_t>(read_us.size());
  stats.slow_frames = stats.frames - static_cast<int64_t>(fast_read_us.size());
  stats.median_read_us = Median(read_us);
  stats.max_read_us = read_us.empty() ? 0 : *std::max_element(read_us.begin(), read_us.end());
  stats.median_fast_read_us = Median(fast_read_us);
}

}  // namespace

Result<Capture> RecordCapture(NvmlApi& api, const RecordOptions& options, RecordStats* stats) {
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
  std::vector<int64_t> read_us, fast_read_us;
  std::vector<uint8_t> slow(capture.devices.size(), 1);
  int64_t next_slow_us = 0;  // since start, on a fixed grid
  for (int64_t n = 0; n < frames; ++n) {
    int64_t due = start + n * options.interval_us;
    int64_t now = NowUs();
    if (options.sleep || now < due) sleep(std::max<int64_t>(0, due - now));
    if (n > 0 && options.stop_requested && options.stop_requested()) break;
    frame.time_us = static_cast<uint64_t>(std::max<int64_t>(0, NowUs() - start));
    bool slow_due = options.slow_interval_us <= 0 || static_cast<int64_t>(frame.time_us) >= next_slow_us;
    if (slow_due && options.slow_interval_us > 0) {  // a fixed grid, restarted when a read fell behind
      next_slow_us += options.slow_interval_us;
      if (next_slow_us <= static_cast<int64_t>(frame.time_us))
        next_slow_us = static_cast<int64_t>(frame.time_us) + options.slow_interval_us;
    }
    std::fill(slow.begin(), slow.end(), slow_due ? 1 : 0);
    int64_t read_start = NowUs();
    reader.ReadFrame(frame, {}, slow);
    read_us.push_back(NowUs() - read_start);
    if (!slow_due) fast_read_us.push_back(read_us.back());
    Frame& stored = capture.frames.emplace_back(frame);
    // Process samples carry Unix µs; a capture counts from its start. Samples the driver
    // took before the recording began are placed at its start.
    for (DeviceFrame& device : stored.devices)
      for (ProcessUtilization& s : device.process_utilization.value)
        s.time_us = s.time_us > capture.start_unix_us ? s.time_us - capture.start_unix_us : 0;
  }
  if (stats != nullptr) Summarize(read_us, fast_read_us, *stats);
  return capture;
}

}  // namespace kraken::nvml
