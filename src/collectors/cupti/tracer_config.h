// The tracer's settings, read from the environment of the traced process (the only way to
// configure a library the CUDA driver loads): KRAKEN_CUPTI_OUTPUT and friends, see
// docs/kernel-capture.md. A bad value never stops the application: it is reported in
// `problems` and the default is used.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kraken::cupti {

enum class ApiRecording { kLaunches, kAll, kNone };

// The optional activity kinds (kernel records are always on), KRAKEN_CUPTI_ACTIVITIES: a
// comma list of memcpy, memset, sync, nvtx (or marker), api, memory (device allocations and
// releases, CUPTI_ACTIVITY_KIND_MEMORY2); `kernels` alone: none of them; `all`: every one.
enum ActivityKind : uint32_t {
  kActivityMemcpy = 1u << 0,
  kActivityMemset = 1u << 1,
  kActivitySync = 1u << 2,
  kActivityNvtx = 1u << 3,
  kActivityApi = 1u << 4,
  kActivityMemory = 1u << 5,
};
constexpr uint32_t kAllActivities =
    kActivityMemcpy | kActivityMemset | kActivitySync | kActivityNvtx | kActivityApi | kActivityMemory;
// All but the synchronization records: on ResNet-50 training (H200, docs/validation.md run
// 10) kernels + sync cost +17 % in throughput against kernels + API calls' +2 %, and
// torch.profiler leaves them out unless asked (Kineto's enable_cuda_sync_events). Memory
// records come once per allocation and release, which costs nothing.
constexpr uint32_t kDefaultActivities = kAllActivities & ~uint32_t{kActivitySync};
// "kernels,memcpy,..." for the trace header: what was asked for.
std::string ActivitiesText(uint32_t activities);

struct TracerConfig {
  std::string output = "kraken_cupti_%p.json";  // KRAKEN_CUPTI_OUTPUT
  ApiRecording api = ApiRecording::kLaunches;     // KRAKEN_CUPTI_API=launches|all|none
  bool nvtx = true;                               // KRAKEN_CUPTI_NVTX=0 turns NVTX ranges off
  uint32_t activities = kDefaultActivities;       // KRAKEN_CUPTI_ACTIVITIES (api/nvtx off: as NONE/0)
  bool quiet = false;                             // KRAKEN_CUPTI_QUIET=1: no start line (errors still)
  int64_t buffer_bytes = 8 << 20;                 // one CUPTI activity buffer
  int64_t buffer_limit_bytes = 256 << 20;         // KRAKEN_CUPTI_BUFFER_MB: all buffers in flight
  int64_t flush_interval_ms = 1000;               // KRAKEN_CUPTI_FLUSH_MS: periodic flush
  int64_t signal_wait_ms = 3000;                  // KRAKEN_CUPTI_SIGNAL_WAIT_MS: flush budget on a fatal signal
  // Per-kernel hardware counters (CUPTI's range profiler, kernel replay): off by default
  // because every profiled kernel is serialized and replayed once per counter pass.
  bool counters = false;                          // KRAKEN_CUPTI_COUNTERS=1
  int64_t counters_max_kernels = 2000;            // KRAKEN_CUPTI_COUNTERS_MAX_KERNELS: then tracing only
  int64_t counters_batch = 128;                   // KRAKEN_CUPTI_COUNTERS_BATCH: ranges decoded at once
  // The capture window: nothing is enabled until delay_ms after the tracer loaded, and the
  // trace is closed duration_ms after recording started (0: at exit). Bounds what CUPTI's
  // per-kernel instrumentation costs a long job to the part that is wanted.
  int64_t delay_ms = 0;                           // KRAKEN_CUPTI_DELAY_MS
  int64_t duration_ms = 0;                        // KRAKEN_CUPTI_DURATION_MS
  bool hw_trace = true;                           // KRAKEN_CUPTI_HW_TRACE=0: SW kernel timestamps only
  // CUPTI attached for the capture window only (cupti_detach.h): a delayed window calls CUPTI
  // first when it opens, and one that ends before the process detaches CUPTI after it.
  bool detach = true;                             // KRAKEN_CUPTI_DETACH=0: attached from CUDA's start to exit
  // KRAKEN_CUPTI_START_ON_NVTX: the window starts at the first push of this NVTX range (not
  // before delay_ms); empty: at delay_ms.
  std::string start_on_nvtx;
  std::vector<std::string> problems;              // one line each, for stderr
};

TracerConfig ReadTracerConfig(const std::function<const char*(const char*)>& getenv);

// The trace file of process `pid`: %p becomes the pid and %h the host name; an output that
// names a folder (an existing one, or any path ending in '/') gets kraken_cupti_<pid>.json
// inside it. Several processes (torchrun workers, a PyTorch DataLoader that uses CUDA)
// therefore each get their own file as long as the pattern has %p or is a folder.
std::string ResolveOutputPath(const std::string& pattern, int64_t pid, const std::string& host,
                              const std::function<bool(const std::string&)>& is_directory);

// This machine's host name (%h), "" when it cannot be read.
std::string HostName();

// The trace file the tracer writes for process `pid` under `config`: ResolveOutputPath
// with this host's name and the folders that exist now. The tracer names its file with it,
// and a profiling session inside a traced process (app/session_kernels.h) finds it so.
std::string ProcessTracePath(const TracerConfig& config, int64_t pid);

}  // namespace kraken::cupti
