// `kraken profile --kernels -- CMD`: the command runs with kraken's CUPTI tracer injected
// (CUDA_INJECTION64_PATH = libkraken_cupti.so, docs/kernel-capture.md), each of its CUDA
// processes writes a Kineto trace into one folder, and after the run the traces are
// imported into one timeline that is stored with the run's NVML samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace kraken::profiling {

// Why --kernels cannot be used with --pid (exit code 2).
inline constexpr const char* kKernelsNeedLaunch =
    "--kernels cannot attach to a running process: the CUDA driver loads the kernel tracer "
    "(CUDA_INJECTION64_PATH) only when a process starts using CUDA; run the command under "
    "kraken profile --kernels -- CMD instead";

struct KernelCaptureSetup {
  std::string injection_library;  // libkraken_cupti.so
  std::string trace_dir;          // one kernels_<pid>.json per CUDA process
  bool remove_after_import = false;
};

// The tracer library: $KRAKEN_CUPTI_INJECTION, else libkraken_cupti.so beside the kraken
// executable (the build tree, a bundle), else <exe>/../lib/kraken/. NotFound says that this
// kraken was built without the CUPTI headers when none exists.
Result<std::string> FindInjectionLibrary();

// The tracer's capture window (KRAKEN_CUPTI_DELAY_MS, KRAKEN_CUPTI_DURATION_MS): -1 leaves
// the setting to the environment (the tracer's default: from the start, until exit).
struct KernelCaptureWindow {
  int64_t delay_ms = -1;
  int64_t duration_ms = -1;
  std::string start_on_nvtx;  // KRAKEN_CUPTI_START_ON_NVTX when not empty
};
// The longest delay or duration the tracer takes: a week.
inline constexpr int64_t kMaxKernelWindowNs = int64_t{7} * 24 * 3600 * 1'000'000'000;

// Sets the environment the command inherits: CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH
// (the library), KRAKEN_CUPTI_OUTPUT (<dir>/kernels_%p.json) and KRAKEN_CUPTI_QUIET=1 (the
// summary reports instead) unless the user set it, and the window's settings when given.
// `trace_dir` empty: a new temporary
// folder, removed after the import. Fails, before anything runs, when the library is
// missing, the folder cannot be created, or CUDA_INJECTION64_PATH already names another
// injection (two tools cannot both be injected). `counters` (--kernel-counters) also sets
// KRAKEN_CUPTI_COUNTERS=1: per-kernel hardware counters, kernels replayed.
Result<KernelCaptureSetup> PrepareKernelCapture(const std::string& trace_dir, const KernelCaptureWindow& window = {},
                                                bool counters = false);

struct KernelCaptureSummary {
  std::string trace_dir;       // where the traces were (kept or removed)
  bool kept = false;
  std::vector<std::string> files;  // the traces found, one per CUDA process
  int64_t kernels = 0;
  int64_t memory_ops = 0;
  int64_t runtime_calls = 0;
  double kernel_time_s = 0;    // sum of kernel durations
  int64_t cut_traces = 0;      // written by a process that was killed (a readable prefix)
  int64_t dropped_records = 0; // CUPTI's, when its buffers were full
  int64_t kernels_with_counters = 0;  // --kernel-counters: kernels tied to their counters
  // One line per trace that recorded nothing and said why (no CUDA device, old driver...),
  // or that could not be read.
  std::vector<std::string> problems;
  // Why there is no kernel at all, in a sentence; empty when kernels were recorded.
  std::string note;
};

// Imports every trace of the folder into `events` (a timeline only: kernels, copies, calls,
// annotations, syncs; times made absolute Unix ns, as the NVML samples', by adding each
// trace's baseTimeNanoseconds), summarizes, and removes the folder when the setup says so.
// Call after the command has ended (its processes write the end of their trace at exit).
KernelCaptureSummary CollectKernelTraces(const KernelCaptureSetup& setup, Profile* events);

// The import part of CollectKernelTraces for the given trace files (a session in a traced
// process reads its own one): the summary's files, counts, problems and note; its trace_dir
// and kept are left to the caller.
KernelCaptureSummary ImportKernelTraces(const std::vector<std::string>& files, Profile* events);

// Sets the summary's kernel (and with-counters), memory-op and runtime-call counts and its
// kernel time from `events` (again after a caller dropped some of them).
void CountTimeline(const Profile& events, KernelCaptureSummary* summary);

// Appends the timeline of `events` (from CollectKernelTraces) to `into` (the --out profile).
void AppendTimeline(const Profile& events, Profile* into);

}  // namespace kraken::profiling
