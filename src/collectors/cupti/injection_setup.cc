#include "collectors/cupti/injection_setup.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "collectors/cupti/api_names.h"
#include "collectors/cupti/cupti_detach.h"
#include "collectors/cupti/hw_trace.h"
#include "collectors/cupti/range_profiler.h"

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

namespace {

// What this process's CUPTI has been through (one tracer, one session per process).
struct CuptiUse {
  std::atomic<bool> touched{false};  // a CUPTI function ran: CUPTI is attached
  std::atomic<int64_t> offset_at_start_ns{0};
  std::atomic<bool> nvtx_forwarded{false};
  // NVTX instances waiting for a deferred attach, and whether it happened (under the mutex).
  std::mutex nvtx_mutex;
  std::vector<NvtxGetExportTable> nvtx_waiting;
  bool attached_for_window = false;
};
CuptiUse g_use;

// The deferred attach hands libcupti the NVTX instances that initialized before it.
void ForwardWaitingNvtx(const LoadedCupti& cupti) {
  std::vector<NvtxGetExportTable> waiting;
  {
    std::lock_guard<std::mutex> lock(g_use.nvtx_mutex);
    g_use.attached_for_window = true;
    waiting.swap(g_use.nvtx_waiting);
  }
  for (NvtxGetExportTable get_export_table : waiting) cupti.functions.InitializeInjectionNvtx2(get_export_table);
}

// CUPTI's clock to Unix time (on Linux CUPTI's clock is CLOCK_REALTIME already: ~0).
int64_t MeasureClockOffset(const CuptiFunctions& f) {
  uint64_t cupti_now = 0;
  const int64_t realtime = RealtimeNs();
  if (f.GetTimestamp(&cupti_now) != CUPTI_SUCCESS) return 0;
  return realtime - static_cast<int64_t>(cupti_now);
}

// Before the first buffer is asked for: CUPTI stops zeroing each buffer on the thread that
// filled the last one (a stall in the application's launch path).
bool PromiseZeroedBuffers(const CuptiFunctions& f) {
  if (f.SetAttribute == nullptr) return false;
  uint8_t zeroed = 1;
  size_t size = sizeof(zeroed);
  return f.SetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed) == CUPTI_SUCCESS;
}

// The closing members on CUPTI's attachment: when it began, and whether it is detached.
JsonMembers AttachMembers(const LoadedCupti& cupti, const TracerConfig& config, bool deferred, bool runs_on) {
  std::string attach = !deferred                ? "at CUDA's start"
                       : g_use.touched.load() ? "when the capture window opened"
                                              : "never: the capture window did not open";
  std::string detach;
  if (!config.detach) {
    detach = "off (KRAKEN_CUPTI_DETACH=0)";
  } else if (!runs_on) {
    detach = "not needed: the trace closed with the process";
  } else if (std::string why = DetachObstacle(cupti, g_use.nvtx_forwarded.load()); !why.empty()) {
    detach = "not possible: " + why;
  } else {
    detach = "at the application's next CUDA call after the window";
  }
  return {{"kraken_cupti_attach", JsonString(attach)}, {"kraken_cupti_detach", JsonString(detach)}};
}

// The session's calls into CUPTI. Until CUPTI is attached (a deferred attach) none is made:
// `now` is Unix time then, and there is nothing to flush or count.
void SetCuptiHooks(const LoadedCupti& cupti, SessionHooks* hooks) {
  const CuptiFunctions& f = cupti.functions;
  hooks->next_record = f.GetNextRecord;
  auto flush = f.FlushAll;
  hooks->flush_all = [flush](bool forced) {
    if (g_use.touched.load()) flush(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  };
  auto dropped = f.GetNumDroppedRecords;
  hooks->take_dropped_records = [dropped]() -> uint64_t {
    size_t count = 0;
    return g_use.touched.load() && dropped(nullptr, 0, &count) == CUPTI_SUCCESS ? count : 0;
  };
  auto timestamp = f.GetTimestamp;
  hooks->now = [timestamp]() -> int64_t {
    if (!g_use.touched.load()) return RealtimeNs();
    uint64_t now = 0;
    return timestamp(&now) == CUPTI_SUCCESS ? static_cast<int64_t>(now) : 0;
  };
  const LoadedCupti* loaded = &cupti;
  hooks->writer_pass = [](bool last) { ReleaseHardwareTimestampsSubscription(last); };
  hooks->closing_members = [loaded](bool) {
    JsonMembers members = HardwareTimestampsMembers();
    // The trace's times are CUPTI's plus the offset measured at the start; measured again
    // here, a change says CUPTI's clock moved against CLOCK_REALTIME during the trace (on an
    // H200, run 10, the trace's launches sat ~0.8 ms before the workload's time.time()).
    uint64_t cupti_at_end = 0;
    const int64_t realtime_at_end = RealtimeNs();
    if (g_use.touched.load() && loaded->functions.GetTimestamp(&cupti_at_end) == CUPTI_SUCCESS) {
      members.emplace_back("kraken_cupti_clock_offset_ns_at_start", JsonInt(g_use.offset_at_start_ns.load()));
      members.emplace_back("kraken_cupti_clock_offset_ns_at_end",
                           JsonInt(realtime_at_end - static_cast<int64_t>(cupti_at_end)));
    }
    // Tracing went on without them: the trace says why it has no device memory.
    if (const int refused = g_memory_refused.load(); refused >= 0)
      members.emplace_back("kraken_cupti_memory_records",
                           JsonString("unavailable: " + loaded->functions.ErrorText(static_cast<CUptiResult>(refused))));
    return members;
  };
}

// The capture window's hooks: the kinds on and off, CUPTI attached at its start (deferred)
// and detached after its end, and the line that says the trace is complete.
void SetWindowHooks(const LoadedCupti& cupti, const TracerConfig& config, const BufferCallbacks* deferred,
                    SessionHooks* hooks) {
  const LoadedCupti* loaded = &cupti;
  hooks->begin_window = [loaded, config] { return EnableActivities(*loaded, config, true); };
  hooks->end_window = [loaded] { DisableActivities(*loaded); };
  if (deferred != nullptr) {
    hooks->attach = [loaded, callbacks = *deferred](AttachResult* attached) -> std::string {
      const CuptiFunctions& f = loaded->functions;
      g_use.touched.store(true);
      attached->zeroed_buffers = PromiseZeroedBuffers(f);
      attached->clock_offset_ns = MeasureClockOffset(f);
      g_use.offset_at_start_ns.store(attached->clock_offset_ns);
      if (CUptiResult r = f.RegisterCallbacks(callbacks.requested, callbacks.completed); r != CUPTI_SUCCESS)
        return "CUPTI refused the buffer callbacks: " + f.ErrorText(r);
      ForwardWaitingNvtx(*loaded);  // before the kinds go on: libcupti installs its handlers then
      return "";
    };
  }
  auto members = hooks->closing_members;
  hooks->closing_members = [members, loaded, config, deferred = deferred != nullptr](bool runs_on) {
    JsonMembers all = members(runs_on);
    for (auto& member : AttachMembers(*loaded, config, deferred, runs_on)) all.push_back(std::move(member));
    return all;
  };
  // Whoever waits for the trace of a long job learns that it is complete (errors always).
  hooks->window_closed = [loaded, config](const TraceSession& session) {
    if (!session.error().empty()) {
      Say("no kernel trace: " + session.error() + " (" + session.output_path() + " records why)");
    } else if (!session.write_error().empty()) {
      Say("the trace " + session.output_path() + " is incomplete: " + session.write_error());
    } else if (!config.quiet) {
      Say("the capture window ended: " + session.output_path() + " is complete (" +
          std::to_string(session.counts().kernels) + " kernels)");
    }
    // The writer made its last CUPTI call: the application's next one may detach CUPTI.
    if (!config.detach || !g_use.touched.load() || !DetachObstacle(*loaded, g_use.nvtx_forwarded.load()).empty())
      return;
    if (std::string why = RequestDetach(*loaded, !config.quiet); !why.empty()) Say("CUPTI stays attached: " + why);
  };
}

}  // namespace

bool AttachesAtWindowStart(const TracerConfig& config, const CuptiFunctions& functions) {
  return config.detach && config.delay_ms > 0 && config.start_on_nvtx.empty() && functions.EnableAndDump != nullptr;
}

void NoteNvtxForwarded() { g_use.nvtx_forwarded.store(true); }

int ForwardNvtxToCupti(const LoadedCupti& cupti, const TracerConfig& config, NvtxGetExportTable get_export_table) {
  NoteNvtxForwarded();
  if (AttachesAtWindowStart(config, cupti.functions)) {
    std::lock_guard<std::mutex> lock(g_use.nvtx_mutex);
    if (!g_use.attached_for_window) {
      g_use.nvtx_waiting.push_back(get_export_table);
      return 1;  // NVTX's calls are no-ops until libcupti installs its handlers
    }
  }
  return cupti.functions.InitializeInjectionNvtx2(get_export_table);
}

std::unique_ptr<TraceSession> StartSession(const LoadedCupti& cupti, const TracerConfig& config,
                                           const BufferCallbacks* deferred, std::string* error) {
  const CuptiFunctions& f = cupti.functions;
  SessionOptions options;
  options.config = config;
  const int64_t realtime = RealtimeNs();
  if (deferred == nullptr) {
    g_use.touched.store(true);
    options.converter.clock_offset_ns = MeasureClockOffset(f);
    g_use.offset_at_start_ns.store(options.converter.clock_offset_ns);
    options.zeroed_buffers = PromiseZeroedBuffers(f);
  }
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
  SessionHooks hooks;
  SetCuptiHooks(cupti, &hooks);
  SetWindowHooks(cupti, config, deferred, &hooks);
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
