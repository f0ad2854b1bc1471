#include "app/session_kernels.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string_view>
#include <thread>

#include "collectors/cupti/tracer_config.h"

namespace kraken::app {
namespace {

namespace fs = std::filesystem;

// Time for the tracer to write what its flush took from CUPTI, after the flush period.
constexpr int64_t kTraceWriteMarginMs = 200;

// Drops the records of `records` that do not overlap [start_ns, end_ns].
template <typename Records>
void KeepOverlapping(TimeNs start_ns, TimeNs end_ns, Records* records) {
  std::erase_if(*records, [&](const auto& r) { return r.start_ns + r.duration_ns < start_ns || r.start_ns > end_ns; });
}

}  // namespace

Status CheckKernelTracerInjected(const EnvironmentReader& getenv) {
  const char* injection = getenv("CUDA_INJECTION64_PATH");
  const std::string named = injection == nullptr ? "" : injection;
  if (fs::path(named).filename().string().starts_with("libkraken_cupti")) return Status::Ok();
  const std::string other =
      named.empty() ? "" : " (CUDA_INJECTION64_PATH names " + named + ", not kraken's tracer)";
  return Unsupported("kernel capture is not available in this session: kernels are recorded by kraken's CUPTI "
                     "tracer, which the CUDA driver injects only when a process starts, and this process was "
                     "started without it" + other + "; start it under kraken profile --kernels -- CMD or with "
                     "CUDA_INJECTION64_PATH=/path/to/libkraken_cupti.so (docs/kernel-capture.md), or start the "
                     "session without kernel_capture");
}

KernelTraceLocation LocateKernelTrace(const EnvironmentReader& getenv, int64_t pid) {
  // The tracer's own reading: a bad KRAKEN_CUPTI_FLUSH_MS falls back to its default here as
  // there, and the path is the one its ProcessTracePath gave it (relative paths: this
  // process's working directory, the tracer's too).
  const cupti::TracerConfig config = cupti::ReadTracerConfig(getenv);
  std::error_code ec;
  fs::path path = fs::absolute(cupti::ProcessTracePath(config, pid), ec);
  return {ec ? cupti::ProcessTracePath(config, pid) : path.lexically_normal().string(), config.flush_interval_ms};
}

void KeepTimelineWithin(TimeNs start_ns, TimeNs end_ns, Profile* events) {
  KeepOverlapping(start_ns, end_ns, &events->kernels);
  KeepOverlapping(start_ns, end_ns, &events->memory_ops);
  KeepOverlapping(start_ns, end_ns, &events->cpu_ops);
  KeepOverlapping(start_ns, end_ns, &events->runtime_calls);
  KeepOverlapping(start_ns, end_ns, &events->syncs);
  KeepOverlapping(start_ns, end_ns, &events->steps);
  KeepOverlapping(start_ns, end_ns, &events->profiler_ranges);
  // The device memory series hold a level, not events: the one at the start (the last
  // change before it) and the changes within the window are kept.
  for (Series& series : events->series) {
    std::vector<Sample>& samples = series.samples;
    auto first = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) { return s.time_ns > start_ns; });
    if (first != samples.begin()) --first;
    auto last = std::find_if(first, samples.end(), [&](const Sample& s) { return s.time_ns > end_ns; });
    samples = std::vector<Sample>(first, last);
  }
}

profiling::KernelCaptureSummary CollectSessionKernels(const KernelTraceLocation& trace, TimeNs start_ns,
                                                      TimeNs stop_ns, Profile* events) {
  // The tracer flushes on its own timer: within one period of the stop, CUPTI's buffers
  // holding the session's last kernels reach the file.
  std::this_thread::sleep_for(std::chrono::milliseconds(trace.flush_interval_ms + kTraceWriteMarginMs));
  std::error_code ec;
  const bool exists = fs::is_regular_file(trace.path, ec);
  profiling::KernelCaptureSummary summary = profiling::ImportKernelTraces(
      exists ? std::vector<std::string>{trace.path} : std::vector<std::string>{}, events);
  summary.trace_dir = fs::path(trace.path).parent_path().string();
  summary.kept = true;  // the tracer's file: the session reads it, never removes it
  if (!exists) {
    summary.problems.push_back("no trace at " + trace.path);
    summary.note = "the CUPTI tracer wrote no trace of this process at " + trace.path +
                   " (no CUDA work in this process yet?); the profile has NVML samples only";
    return summary;
  }
  const int64_t traced = summary.kernels;
  KeepTimelineWithin(start_ns, stop_ns, events);
  profiling::CountTimeline(*events, &summary);
  if (traced > 0 && summary.kernels == 0)
    summary.note = "the trace of this process holds " + std::to_string(traced) +
                   " kernels, none of them while the session ran";
  else if (summary.kernels == 0 && summary.problems.empty())
    summary.note = "this process ran no kernel while the session ran";
  return summary;
}

}  // namespace kraken::app
