#include "collectors/cupti/injection_setup.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>

#include "collectors/cupti/api_names.h"
#include "collectors/cupti/range_profiler.h"
#include "collectors/cupti/hw_trace.h"

namespace kraken::cupti {
namespace {

// What libcupti answered when it refused CUPTI_ACTIVITY_KIND_MEMORY2 (a CUptiResult); -1:
// not refused or not asked. Process-wide: the first refusal is the one the trace notes.
std::atomic<int> g_memory_refused{-1};

// The command line, as the trace's "command" member (cut to stay readable).
std::string CommandLine() {
  std::string text;
  int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[512];
  ssize_t n = ::read(fd, buffer, sizeof(buffer));
  ::close(fd);
  for (ssize_t i = 0; i < n; ++i) text.push_back(buffer[i] == '\0' ? ' ' : buffer[i]);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

int64_t RealtimeNs() {
  struct timespec now {};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Why CUPTI could not enable kernel records, in the terms a user can act on.
std::string KernelRecordsUnavailable(const LoadedCupti& cupti, CUptiResult result) {
  std::string why = "CUPTI cannot record kernels: " + cupti.functions.ErrorText(result);
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (driver == nullptr) return why + "; no CUDA driver is loaded in this process (no libcuda.so.1): no CUDA device";
  dlclose(driver);
  if (result == CUPTI_ERROR_NOT_COMPATIBLE || result == CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE)
    return why + "; " + cupti.path + " is newer than the CUDA driver: point KRAKEN_CUPTI_LIBRARY at the libcupti "
                 "of the CUDA version the driver supports";
  return why;
}

// This process's trace file and the header every trace starts with.
struct TraceFile {
  std::string path;
  int64_t base_time_ns = 0;
  JsonMembers header;
};

TraceFile PrepareTraceFile(const TracerConfig& config, int64_t realtime_ns, const LoadedCupti* cupti) {
  TraceFile file;
  const int64_t pid = getpid();
  const std::string host = HostName();
  file.path = ProcessTracePath(config, pid);  // as a session in this process finds it
  // Whole seconds: the timestamps stay short and exact in microseconds with 3 decimals.
  file.base_time_ns = realtime_ns - realtime_ns % 1'000'000'000;
  file.header = {{"traceName", JsonString(file.path)},
                 {"host_name", JsonString(host)},
                 {"pid", JsonInt(pid)},
                 {"command", JsonString(CommandLine())},
                 {"kraken_cupti_activities", JsonString(ActivitiesText(config.activities))}};
  if (config.counters) file.header.emplace_back("kraken_cupti_counters", JsonString("range_profiler"));
  if (config.delay_ms > 0 || config.duration_ms > 0 || !config.start_on_nvtx.empty()) {
    // The requested capture window; the closing members say when it really began and ended.
    file.header.emplace_back("kraken_cupti_window_delay_ms", JsonInt(config.delay_ms));
    file.header.emplace_back("kraken_cupti_window_duration_ms", JsonInt(config.duration_ms));
    if (!config.start_on_nvtx.empty())
      file.header.emplace_back("kraken_cupti_window_start_on_nvtx", JsonString(config.start_on_nvtx));
  }
  if (cupti != nullptr) {
    file.header.emplace_back("cupti_version", JsonInt(cupti->version));
    file.header.emplace_back("kraken_cupti_library", JsonString(cupti->path));
  }
  return file;
}

}  // namespace

std::string WriteErrorTrace(const TracerConfig& config, const std::string& error) {
  TraceFile file = PrepareTraceFile(config, RealtimeNs(), nullptr);
  std::string open_error;
  auto writer = KinetoTraceWriter::Open(file.path, file.base_time_ns, file.header, &open_error);
  if (writer == nullptr || !writer->Finish({{"kraken_cupti_error", JsonString(error)}})) return "";
  return file.path;
}

void Say(const std::string& line) {
  std::string text = "kraken-cupti: " + line + "\n";
  ssize_t ignored = ::write(2, text.data(), text.size());
  (void)ignored;
}

std::unique_ptr<TraceSession> StartSession(const LoadedCupti& cupti, const TracerConfig& config, std::string* error) {
  const CuptiFunctions& f = cupti.functions;
  SessionOptions options;
  options.config = config;
  uint64_t cupti_now = 0;
  const int64_t realtime = RealtimeNs();
  if (f.GetTimestamp(&cupti_now) != CUPTI_SUCCESS) cupti_now = static_cast<uint64_t>(realtime);
  // CUPTI's clock to Unix time (on Linux CUPTI's clock is CLOCK_REALTIME already: ~0).
  options.converter.clock_offset_ns = realtime - static_cast<int64_t>(cupti_now);
  TraceFile file = PrepareTraceFile(config, realtime, &cupti);
  options.output_path = file.path;
  options.base_time_ns = file.base_time_ns;
  options.header = std::move(file.header);
  options.converter.api = config.api;
  options.converter.project_annotations = config.nvtx;
  if (f.GetCallbackName != nullptr) {
    auto get_name = f.GetCallbackName;
    options.converter.api_name_fallback = [get_name](ApiDomain domain, uint32_t cbid) -> std::string {
      const char* name = nullptr;
      auto cupti_domain = domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
      return get_name(cupti_domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr ? name : "";
    };
  }
  if (f.SetAttribute != nullptr) {
    // Before the first buffer is asked for: CUPTI stops zeroing each buffer on the thread
    // that filled the last one (a stall in the application's launch path).
    uint8_t zeroed = 1;
    size_t size = sizeof(zeroed);
    options.zeroed_buffers =
        f.SetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed) == CUPTI_SUCCESS;
  }
  options.header.emplace_back("kraken_cupti_zeroed_buffers", options.zeroed_buffers ? "true" : "false");
  SessionHooks hooks;
  hooks.next_record = f.GetNextRecord;
  auto flush = f.FlushAll;
  hooks.flush_all = [flush](bool forced) { flush(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); };
  auto dropped = f.GetNumDroppedRecords;
  hooks.take_dropped_records = [dropped]() -> uint64_t {
    size_t count = 0;
    return dropped(nullptr, 0, &count) == CUPTI_SUCCESS ? count : 0;
  };
  auto timestamp = f.GetTimestamp;
  hooks.now = [timestamp]() -> int64_t {
    uint64_t now = 0;
    return timestamp(&now) == CUPTI_SUCCESS ? static_cast<int64_t>(now) : 0;
  };
  const LoadedCupti* loaded = &cupti;
  hooks.begin_window = [loaded, config] { return EnableActivities(*loaded, config, true); };
  hooks.end_window = [loaded] { DisableActivities(*loaded); };
  // Whoever waits for the trace of a long job learns that it is complete (errors always).
  hooks.window_closed = [quiet = config.quiet](const TraceSession& session) {
    if (!session.error().empty()) {
      Say("no kernel trace: " + session.error() + " (" + session.output_path() + " records why)");
    } else if (!session.write_error().empty()) {
      Say("the trace " + session.output_path() + " is incomplete: " + session.write_error());
    } else if (!quiet) {
      Say("the capture window ended: " + session.output_path() + " is complete (" +
          std::to_string(session.counts().kernels) + " kernels)");
    }
  };
  hooks.writer_pass = [](bool last) { ReleaseHardwareTimestampsSubscription(last); };
  const int64_t offset_at_start = options.converter.clock_offset_ns;
  hooks.closing_members = [loaded, offset_at_start] {
    JsonMembers members = HardwareTimestampsMembers();
    // The trace's times are CUPTI's plus the offset measured at the start; measured again
    // here, a change says CUPTI's clock moved against CLOCK_REALTIME during the trace (on an
    // H200, run 10, the trace's launches sat ~0.8 ms before the workload's time.time()).
    uint64_t cupti_at_end = 0;
    const int64_t realtime_at_end = RealtimeNs();
    if (loaded->functions.GetTimestamp(&cupti_at_end) == CUPTI_SUCCESS) {
      members.emplace_back("kraken_cupti_clock_offset_ns_at_start", JsonInt(offset_at_start));
      members.emplace_back("kraken_cupti_clock_offset_ns_at_end",
                           JsonInt(realtime_at_end - static_cast<int64_t>(cupti_at_end)));
    }
    // Tracing went on without them: the trace says why it has no device memory.
    if (const int refused = g_memory_refused.load(); refused >= 0)
      members.emplace_back("kraken_cupti_memory_records",
                           JsonString("unavailable: " + loaded->functions.ErrorText(static_cast<CUptiResult>(refused))));
    return members;
  };
  return TraceSession::Start(std::move(options), std::move(hooks), error);
}

void PrepareDelayedWindow(const LoadedCupti& cupti) {
  const CuptiFunctions& f = cupti.functions;
  if (f.EnableAndDump != nullptr) return;
  f.Enable(CUPTI_ACTIVITY_KIND_DEVICE);
  f.Enable(CUPTI_ACTIVITY_KIND_CONTEXT);
}

void DisableActivities(const LoadedCupti& cupti) {
  const CuptiFunctions& f = cupti.functions;
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MARKER,
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_DEVICE,
        CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_MEMORY2})
    f.Disable(kind);  // a kind that was not enabled: an error to ignore
  if (f.EnableRuntimeApi != nullptr)
    for (const ApiName& api : ApiNameTable(ApiDomain::kRuntime))
      if (RecordedByDefault(StripVersionSuffix(api.name))) f.EnableRuntimeApi(api.cbid, 0);
  if (f.EnableDriverApi != nullptr)
    for (const ApiName& api : ApiNameTable(ApiDomain::kDriver))
      if (RecordedByDefault(api.name)) f.EnableDriverApi(api.cbid, 0);
}

std::string EnableActivities(const LoadedCupti& cupti, const TracerConfig& config, bool late) {
  const CuptiFunctions& f = cupti.functions;
  if (f.SetThreadIdType != nullptr) f.SetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);  // gettid(), as /proc
  if (CUptiResult r = f.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS)
    return KernelRecordsUnavailable(cupti, r);
  // Device and context records are one per GPU: always on (the trace's deviceProperties).
  // Late (a delayed window), CUDA made them already: dumped where libcupti can, else
  // PrepareDelayedWindow enabled them from the start.
  auto enable_existing = late && f.EnableAndDump != nullptr ? f.EnableAndDump : f.Enable;
  enable_existing(CUPTI_ACTIVITY_KIND_DEVICE);
  enable_existing(CUPTI_ACTIVITY_KIND_CONTEXT);
  // Optional kinds (KRAKEN_CUPTI_ACTIVITIES): a libcupti without one still traces kernels.
  const uint32_t wanted = config.activities;
  if ((wanted & kActivityMemcpy) != 0) {
    f.Enable(CUPTI_ACTIVITY_KIND_MEMCPY);
    f.Enable(CUPTI_ACTIVITY_KIND_MEMCPY2);
  }
  if ((wanted & kActivityMemset) != 0) f.Enable(CUPTI_ACTIVITY_KIND_MEMSET);
  if ((wanted & kActivitySync) != 0) f.Enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (config.nvtx) f.Enable(CUPTI_ACTIVITY_KIND_MARKER);
  if ((wanted & kActivityMemory) != 0) {
    // Device allocations and releases (the workload's memory, activity_memory.h). A libcupti
    // that refuses them still traces; the closing members say why (noted once).
    if (CUptiResult r = f.Enable(CUPTI_ACTIVITY_KIND_MEMORY2); r != CUPTI_SUCCESS) {
      int not_refused = -1;
      g_memory_refused.compare_exchange_strong(not_refused, static_cast<int>(r));
    }
  }
  if (config.api == ApiRecording::kNone) return "";
  bool by_id = config.api == ApiRecording::kLaunches && f.EnableRuntimeApi != nullptr && f.EnableDriverApi != nullptr;
  if (by_id) {
    // Only the launching and waiting calls: cudaGetDevice & co. cost a record each otherwise.
    for (const ApiName& api : ApiNameTable(ApiDomain::kRuntime))
      if (RecordedByDefault(StripVersionSuffix(api.name)) && f.EnableRuntimeApi(api.cbid, 1) != CUPTI_SUCCESS)
        by_id = false;
    for (const ApiName& api : ApiNameTable(ApiDomain::kDriver))
      if (RecordedByDefault(api.name) && f.EnableDriverApi(api.cbid, 1) != CUPTI_SUCCESS) by_id = false;
  }
  if (!by_id) {
    // All calls; the converter keeps the selected ones (KRAKEN_CUPTI_API=launches).
    f.Enable(CUPTI_ACTIVITY_KIND_RUNTIME);
    f.Enable(CUPTI_ACTIVITY_KIND_DRIVER);
  }
  return "";
}

namespace {

std::atomic<RangeProfiler*> g_counters_at_exit{nullptr};
std::atomic<pid_t> g_counters_pid{-1};  // a child forked later inherits the handler, not CUPTI's state

void FinishCountersAtExit() {
  RangeProfiler* profiler = g_counters_at_exit.load();
  if (profiler != nullptr && getpid() == g_counters_pid.load()) profiler->Finish();
}

}  // namespace

std::string StartCounters(const LoadedCupti& cupti, const TracerConfig& config, TraceSession* session) {
  std::string error;
  auto sink = [session](std::vector<CounterRange> ranges) { session->QueueCounterRanges(std::move(ranges)); };
  std::unique_ptr<RangeProfiler> profiler = RangeProfiler::Create(cupti, config, sink, Say, &error);
  if (profiler == nullptr) {
    CounterSummary summary;
    summary.max_kernels = config.counters_max_kernels;
    summary.error = error;
    session->SetCounterSource(nullptr, [summary] { return CounterFooterMembers(summary); });
    return error;
  }
  // Lives as long as the process: CUPTI calls it back until the end.
  RangeProfiler* owned = profiler.release();
  g_counters_at_exit.store(owned);
  // Exit handlers run in reverse order of registration. The tracer's own (injection.cc)
  // was registered inside cuInit, before CUPTI's profiler existed; registered at the first
  // profiled launch, this one runs before whatever CUPTI registered while setting it up,
  // so the last batch is collected while CUPTI's profiler is still whole.
  owned->CallOnceStarted([] {
    g_counters_pid.store(getpid());
    std::atexit(FinishCountersAtExit);
  });
  session->SetCounterSource([owned] { owned->Finish(); }, [owned] { return CounterFooterMembers(owned->Summary()); });
  return "";
}

}  // namespace kraken::cupti
