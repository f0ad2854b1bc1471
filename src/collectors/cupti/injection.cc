// libkraken_cupti.so's entry points. The CUDA driver calls InitializeInjection() once, when
// a process first initializes CUDA, because CUDA_INJECTION64_PATH names this library;
// NVTX calls InitializeInjectionNvtx2() when NVTX_INJECTION64_PATH names it (forwarded to
// libcupti, which records the ranges). Nothing here may crash, stop or noticeably slow
// the application: every failure is one line on stderr ("kraken-cupti: ...") and the
// application goes on untraced. docs/kernel-capture.md describes the settings.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "collectors/cupti/cupti_detach.h"
#include "collectors/cupti/cupti_functions.h"
#include "collectors/cupti/hw_trace.h"
#include "collectors/cupti/injection_setup.h"
#include "collectors/cupti/nvtx_start.h"
#include "collectors/cupti/signal_chain.h"
#include "collectors/cupti/trace_session.h"

namespace kraken::cupti {
namespace {

// Owned for the life of the process and never destroyed: CUPTI may call back into the
// session while static destructors run at exit.
std::atomic<TraceSession*> g_session{nullptr};
pid_t g_owner_pid = 0;
int64_t g_signal_wait_ms = 0;
std::once_flag g_load_once;
LoadedCupti g_cupti;
std::string g_load_error;

void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  TraceSession* session = g_session.load();
  if (session != nullptr) return session->RequestBuffer(buffer, size, max_records);
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;
}

void CUPTIAPI OnBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  TraceSession* session = g_session.load();
  if (session != nullptr) return session->CompleteBuffer(buffer, valid_size);
  std::free(buffer);
}

void OnSignal(int, bool terminating) {
  TraceSession* session = g_session.load();
  if (session == nullptr || getpid() != g_owner_pid) return;
  session->RequestFromSignal(terminating);
  if (terminating) session->WaitFromSignal(g_signal_wait_ms);
}

void AtExit() {
  TraceSession* session = g_session.load();
  // A child forked after CUDA started inherits this handler, not the writer thread.
  if (session == nullptr || getpid() != g_owner_pid) return;
  bool written = session->Finish();
  if (!written) Say("the trace " + session->output_path() + " is incomplete: " + session->write_error());
  if (session->dropped_records() > 0 || session->buffers_refused() > 0)
    Say(std::to_string(session->dropped_records()) + " activity records were dropped (buffers full; raise "
        "KRAKEN_CUPTI_BUFFER_MB) in " + session->output_path());
}

// " from 30000 ms after the start for 5000 ms": the capture window, for the start line.
std::string WindowText(const TracerConfig& config) {
  std::string text;
  if (!config.start_on_nvtx.empty()) text += " from the first NVTX range " + config.start_on_nvtx;
  if (config.delay_ms > 0)
    text += std::string(config.start_on_nvtx.empty() ? " from " : " at least ") + std::to_string(config.delay_ms) +
            " ms after the start";
  if (config.duration_ms > 0) text += " for " + std::to_string(config.duration_ms) + " ms";
  return text;
}

void LoadOnce() {
  std::call_once(g_load_once, [] {
    if (!LoadCupti(ProcessEnvironment(), &g_cupti, &g_load_error)) g_cupti.handle = nullptr;
  });
}

void Start() {
  TracerConfig config = ReadTracerConfig([](const char* name) -> const char* { return std::getenv(name); });
  for (const std::string& problem : config.problems) Say(problem);
  LoadOnce();
  if (g_cupti.handle == nullptr) {
    std::string path = WriteErrorTrace(config, g_load_error);
    Say("no kernel trace: " + g_load_error + (path.empty() ? "" : " (" + path + " records why)"));
    return;
  }
  g_owner_pid = getpid();
  g_signal_wait_ms = config.signal_wait_ms;
  const CuptiFunctions& f = g_cupti.functions;
  // A delayed window: nothing is enabled now; the writer thread (at the delay) or the thread
  // pushing the NVTX range enables the kinds later.
  const bool delayed = config.delay_ms > 0 || !config.start_on_nvtx.empty();
  // Attached only when the window opens (cupti_detach.h): not on the NVTX push's thread,
  // and not without cuptiActivityEnableAndDump (the device records are made now).
  const bool deferred = AttachesAtWindowStart(config, f);
  const BufferCallbacks callbacks{OnBufferRequested, OnBufferCompleted};
  std::string error;
  std::unique_ptr<TraceSession> owned = StartSession(g_cupti, config, deferred ? &callbacks : nullptr, &error);
  if (owned == nullptr) {
    Say("no kernel trace: " + error);
    return;
  }
  TraceSession* session = owned.get();
  g_session.store(session);
  if (deferred) {
    // Nothing until the window: the session's attach hook registers the callbacks then.
  } else if (CUptiResult r = f.RegisterCallbacks(OnBufferRequested, OnBufferCompleted); r != CUPTI_SUCCESS) {
    error = "CUPTI refused the buffer callbacks: " + f.ErrorText(r);
  } else if (delayed) {
    PrepareDelayedWindow(g_cupti);
  } else {
    error = EnableActivities(g_cupti, config);
  }
  if (!error.empty()) {
    // Nothing was enabled, so CUPTI hands no buffer to this session any more.
    g_session.store(nullptr);
    session->SetError(error);
    session->Finish();
    Say("no kernel trace: " + error + " (" + session->output_path() + " records why)");
    return;
  }
  if (config.counters) {
    if (std::string why = StartCounters(g_cupti, config, session); !why.empty())
      Say("no per-kernel counters: " + why + "; kernel tracing goes on");
  }
  owned.release();  // lives as long as the process (see g_session)
  // One CUPTI subscriber per process: with the counters' subscription the HW-trace request is not made.
  RequestHardwareTimestamps(g_cupti, config.hw_trace && !config.counters && !deferred);
  if (deferred && config.hw_trace) SkipHardwareTimestampsForDeferredAttach();
  session->Arm(!delayed);
  std::atexit(AtExit);
  InstallSignalChain(OnSignal);
  pthread_atfork(nullptr, nullptr, [] { g_owner_pid = -1; });
  if (!config.quiet)
    Say(std::string(delayed ? "will record" : "recording") + " the CUDA activity of pid " +
        std::to_string(g_owner_pid) + WindowText(config) + " into " + session->output_path() + " (" + g_cupti.path +
        ", CUPTI " + std::to_string(g_cupti.version) +
        (config.counters ? ", per-kernel counters on: kernels are replayed" : "") + ")");
}

}  // namespace
}  // namespace kraken::cupti

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> started{false};
  if (!started.exchange(true)) kraken::cupti::Start();
  return 1;  // the driver goes on whatever the tracer's fate
}

// NVTX's loader calls this in the process's first NVTX call; libcupti then receives the
// ranges, which become CUPTI_ACTIVITY_KIND_MARKER records once InitializeInjection enabled
// them. Returns 0 (NVTX stays a no-op) when libcupti is missing or NVTX is turned off.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    kraken::cupti::NvtxGetExportTable get_export_table) {
  using namespace kraken::cupti;
  // KRAKEN_CUPTI_NVTX=0 or KRAKEN_CUPTI_ACTIVITIES without nvtx: NVTX stays a no-op.
  TracerConfig config = ReadTracerConfig([](const char* name) -> const char* { return std::getenv(name); });
  if (!config.nvtx) return 0;
  LoadOnce();
  if (g_cupti.handle == nullptr || g_cupti.functions.InitializeInjectionNvtx2 == nullptr) return 0;
  // Detached (or about to be) after its window: libcupti's NVTX handlers would attach CUPTI again.
  if (CuptiDetachRequested()) return 0;
  if (config.start_on_nvtx.empty()) return ForwardNvtxToCupti(g_cupti, config, get_export_table);
  // NVTX may start before CUDA: until the session exists, a matching push starts nothing.
  NoteNvtxForwarded();
  return InitializeNvtxWithStartHook(g_cupti.functions.InitializeInjectionNvtx2, get_export_table,
                                     config.start_on_nvtx, [] {
                                       TraceSession* session = g_session.load();
                                       return session != nullptr && session->StartWindowNow();
                                     });
}
