// libkraken_cupti_fake.so: the part of libcupti's C API the tracer uses, answered without a
// GPU, so that tests (and a GPU validation script rehearsed on a machine without one) run
// the real injection path end to end: loading through KRAKEN_CUPTI_LIBRARY, enabling
// activity kinds, buffer requests and completions, flushes, exit. Each periodic
// cuptiActivityFlushAll delivers up to KRAKEN_FAKE_CUPTI_PER_FLUSH launches (default 1000)
// and a forced one all that is left, until KRAKEN_FAKE_CUPTI_LAUNCHES (default 1000; -1: no
// end) have been delivered. A launch is a
// kernel record (CUpti_ActivityKernel10, 1 us long, every 2 us, stream 7, "fake_kernel")
// and, when its call is enabled, a cudaLaunchKernel record with the same correlation id.
// The first flush also delivers one device record (an H100-like device 0), and with
// KRAKEN_FAKE_CUPTI_ALLOCATIONS=1 and the memory kind enabled, memory records
// (CUpti_ActivityMemory4, PutAllocations): device 0 holds 1.5 GiB at its peak and 1 GiB at the
// end; a pool sub-allocation and a release of an unknown address come too.
// KRAKEN_FAKE_CUPTI_ALLOCATIONS=refuse: enabling CUPTI_ACTIVITY_KIND_MEMORY2 fails.
//
// Capture windows: records are made only while the kernel kind is enabled. An endless run
// (-1) launches on the clock: launch n at n * 2 us after the library was loaded,
// delivered once its time has come, and those launched while the kind was off are never
// recorded (as with the real CUPTI). Blackwell's HW trace: cuptiActivityEnableHWTrace
// answers NOT_INITIALIZED until the "driver" finished cuInit (kraken_fake_cuda_init_finished),
// then SUCCESS when KRAKEN_FAKE_CUPTI_HW_TRACE=supported, else NOT_SUPPORTED (a Hopper).
// With KRAKEN_FAKE_CUPTI_LOG=<file>, every enable, disable, subscription, callback switch
// and HW-trace call is a line "<CLOCK_REALTIME ns> <what> <detail>" of that file, for the
// tests to check when and what the tracer asked for. Attachment, as libcupti does it: the
// first call of any function but cuptiGetVersion and cuptiGetResultString is logged
// "attach", cuptiFinalize "finalize" (it forgets the callbacks, kinds and subscriber), and
// a call after it "attach" again. The callback API (subscription,
// callback switches, the end of cuInit) is in fake_cupti_callbacks.cc.
#include <cupti.h>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

// fake_range_profiler.cc: announces launches to a CUPTI callback subscriber; absent from
// libkraken_cupti_fake_norange.so (a libcupti without the range profiler).
void KrakenFakeAnnounceLaunches(int64_t first, int64_t count) __attribute__((weak));
// fake_cupti_callbacks.cc: whether the "driver" finished cuInit; cuptiFinalize's end of the subscription.
bool KrakenFakeDriverInitialized();
void KrakenFakeForgetSubscriber();

namespace {

constexpr uint32_t kLaunchCbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;

std::mutex g_mutex;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::set<int> g_kinds;
std::set<uint32_t> g_runtime_ids;
int64_t g_delivered = 0;
bool g_device_sent = false;
bool g_memory_sent = false;
int64_t g_announced = 0;  // launches announced to a callback subscriber
uint64_t g_origin = 0;
uint64_t g_kernels_off_at = 0;  // when kernel records were last disabled; 0: on or never
bool g_zeroed_promised = false;  // CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER set to 1
std::atomic<bool> g_attached{false};

uint64_t Now() {
  struct timespec now {};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

int64_t Setting(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoll(text) : fallback;
}

void Log(const char* what, long long detail) {
  const char* path = std::getenv("KRAKEN_FAKE_CUPTI_LOG");
  if (path == nullptr || *path == '\0') return;
  if (FILE* log = std::fopen(path, "a")) {
    std::fprintf(log, "%llu %s %lld\n", static_cast<unsigned long long>(Now()), what, detail);
    std::fclose(log);
  }
}

// Each function but the version, the error text and cuptiFinalize: CUPTI attaches lazily.
void Touch() {
  if (!g_attached.exchange(true)) Log("attach", 0);
}

// Launch 0 of an endless run: when the tracer loaded this library (in cuInit, before its
// window's clock starts), whether or not it calls CUPTI then.
__attribute__((constructor)) void SetOrigin() { g_origin = Now(); }


template <typename T>
size_t Stride() {
  return (sizeof(T) + 7) / 8 * 8;
}

size_t RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return Stride<CUpti_ActivityKernel10>();
    case CUPTI_ACTIVITY_KIND_RUNTIME: return Stride<CUpti_ActivityAPI>();
    case CUPTI_ACTIVITY_KIND_DEVICE: return Stride<CUpti_ActivityDevice5>();
    case CUPTI_ACTIVITY_KIND_MEMORY2: return Stride<CUpti_ActivityMemory4>();
    default: return 8;
  }
}

template <typename T>
void Put(uint8_t* buffer, size_t* used, const T& record) {
  std::memcpy(buffer + *used, &record, sizeof(T));
  *used += Stride<T>();
}

bool AllocationsWanted() {
  const char* mode = std::getenv("KRAKEN_FAKE_CUPTI_ALLOCATIONS");
  return mode != nullptr && std::strcmp(mode, "1") == 0;
}

// The memory records of KRAKEN_FAKE_CUPTI_ALLOCATIONS=1, at the start of the run: cudaMalloc
// of 1 GiB and 512 MiB, cudaFree of the 512 MiB, a cudaMallocAsync of 256 MiB (pool) and a
// cudaFree of memory allocated before the trace. 5 records of 8-byte aligned size.
void PutAllocations(uint8_t* buffer, size_t* used) {
  auto record = [&](CUpti_ActivityMemoryOperationType operation, uint64_t address, uint64_t bytes, uint64_t at_ns) {
    CUpti_ActivityMemory4 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    m.memoryOperationType = operation;
    m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    m.address = address, m.bytes = bytes, m.timestamp = g_origin + at_ns;
    m.processId = static_cast<uint32_t>(getpid()), m.deviceId = 0, m.contextId = 1;
    return m;
  };
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  Put(buffer, used, record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7f0000000000, kGiB, 100));
  Put(buffer, used, record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7f0040000000, kGiB / 2, 200));
  Put(buffer, used, record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 0x7f0040000000, kGiB / 2, 300));
  CUpti_ActivityMemory4 pooled = record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x7f0080000000, kGiB / 4, 400);
  pooled.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  Put(buffer, used, pooled);
  Put(buffer, used, record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 0x7e0000000000, kGiB, 500));
}

// Fills one buffer with up to *budget launches (and the device record once); returns false
// when nothing was due.
// An endless run delivers the launches made until `horizon_ns` (CUPTI clock).
bool DeliverOneBuffer(int64_t* budget, uint64_t horizon_ns) {
  const int64_t total = Setting("KRAKEN_FAKE_CUPTI_LAUNCHES", 1000);
  // Launches recorded before the kind went off are still handed over, as CUPTI does.
  if (g_kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == 0 && (total >= 0 || g_kernels_off_at == 0))
    return false;
  if (*budget <= 0 || (total >= 0 && g_delivered >= total)) return false;
  uint8_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  g_request(&buffer, &size, &max_records);
  if (buffer == nullptr) return false;
  // CUPTI trusts a client that promised zeroed buffers: a dirty one is the client's bug.
  if (g_zeroed_promised && std::any_of(buffer, buffer + size, [](uint8_t byte) { return byte != 0; }))
    std::fprintf(stderr, "fake libcupti: a buffer handed over as zeroed was not\n");
  size_t used = 0;
  if (!g_device_sent && g_kinds.count(CUPTI_ACTIVITY_KIND_DEVICE) != 0) {
    CUpti_ActivityDevice5 d{};
    d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    d.name = "Fake H100 (libkraken_cupti_fake.so)";
    d.globalMemorySize = 85'520'809'984ULL;
    d.numMultiprocessors = 132;
    d.computeCapabilityMajor = 9;
    d.maxWarpsPerMultiprocessor = 64;
    d.maxThreadsPerBlock = 1024;
    Put(buffer, &used, d);
    g_device_sent = true;
  }
  if (!g_memory_sent && g_kinds.count(CUPTI_ACTIVITY_KIND_MEMORY2) != 0 && AllocationsWanted()) {
    PutAllocations(buffer, &used);
    g_memory_sent = true;
  }
  const bool calls = g_kinds.count(CUPTI_ACTIVITY_KIND_RUNTIME) != 0 || g_runtime_ids.count(kLaunchCbid) != 0;
  int64_t delivered_now = 0;
  while ((total < 0 || g_delivered < total) && delivered_now < *budget &&
         used + Stride<CUpti_ActivityKernel10>() + Stride<CUpti_ActivityAPI>() <= size) {
    const uint64_t start = g_origin + static_cast<uint64_t>(g_delivered) * 2000;
    if (total < 0 && start > horizon_ns) break;  // an endless run launches on the clock
    const auto correlation = static_cast<uint32_t>(g_delivered + 1);
    if (calls) {
      CUpti_ActivityAPI api{};
      api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
      api.cbid = kLaunchCbid;
      api.start = start - 1500, api.end = start - 500;
      api.processId = static_cast<uint32_t>(getpid()), api.threadId = static_cast<uint32_t>(getpid());
      api.correlationId = correlation;
      Put(buffer, &used, api);
    }
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "_Z11fake_kernelPfi";
    k.start = start, k.end = start + 1000;
    k.streamId = 7, k.contextId = 1, k.correlationId = correlation;
    k.gridX = 264, k.gridY = k.gridZ = 1, k.blockX = 256, k.blockY = k.blockZ = 1;
    k.registersPerThread = 32;
    Put(buffer, &used, k);
    ++g_delivered;
    ++delivered_now;
  }
  g_complete(nullptr, 0, buffer, size, used);
  *budget -= delivered_now;
  return delivered_now > 0;
}

// NVTX's injection entry point, as libcupti 13 behaves: it keeps NVTX's export table and
// installs its nvtxRangePushA handler (which logs "nvtx_push:<name>") into the instance's
// core function table only once NVTX markers are enabled, whichever comes first (NVTX's
// ABI: NVTX_ETID_CALLBACKS = 1, NVTX_CB_MODULE_CORE = 1, NVTX_CBID_CORE_RangePushA = 9).
using FakeNvtxFunction = void (*)();
struct FakeNvtxCallbacks {
  size_t struct_size;
  int (*GetModuleFunctionTable)(int module, FakeNvtxFunction*** out_table, unsigned int* out_size);
};
const void* (*g_nvtx_export_table)(uint32_t) = nullptr;

int FakeNvtxRangePushA(const char* message) {
  Log((std::string("nvtx_push:") + (message != nullptr ? message : "")).c_str(), 0);
  return 0;
}

// Under g_mutex.
void InstallNvtxHandlers() {
  if (g_nvtx_export_table == nullptr || g_kinds.count(CUPTI_ACTIVITY_KIND_MARKER) == 0) return;
  const auto* callbacks = static_cast<const FakeNvtxCallbacks*>(g_nvtx_export_table(1));
  FakeNvtxFunction** table = nullptr;
  unsigned int size = 0;
  if (callbacks == nullptr || callbacks->GetModuleFunctionTable(1, &table, &size) == 0 || table == nullptr ||
      size < 9 || table[9] == nullptr)
    return;
  *table[9] = reinterpret_cast<FakeNvtxFunction>(FakeNvtxRangePushA);
  Log("nvtx_handlers_installed", 0);
}

}  // namespace

// For fake_range_profiler.cc and fake_cupti_callbacks.cc: a line of KRAKEN_FAKE_CUPTI_LOG.
void KrakenFakeLog(const char* what, long long detail) { Log(what, detail); }
void KrakenFakeTouch() { Touch(); }

extern "C" {

CUptiResult cuptiGetVersion(uint32_t* version) {
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char** text) {
  *text = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS" : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                           CUpti_BuffersCallbackCompleteFunc complete) {
  Touch();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiFinalize() {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    Log("finalize", 0);
    g_request = nullptr;
    g_complete = nullptr;
    g_kinds.clear();
    g_runtime_ids.clear();
  }
  KrakenFakeForgetSubscriber();
  g_attached.store(false);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  Touch();
  std::lock_guard<std::mutex> lock(g_mutex);
  Log("enable", kind);
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && Setting("KRAKEN_FAKE_CUPTI_LAUNCHES", 1000) < 0 &&
      g_origin != 0) {
    // The launches made while kernels were not recorded are lost.
    const auto launched = static_cast<int64_t>((Now() - g_origin + 1999) / 2000);
    if (launched > g_delivered) g_delivered = launched;
  }
  if (const char* memory = std::getenv("KRAKEN_FAKE_CUPTI_ALLOCATIONS");
      kind == CUPTI_ACTIVITY_KIND_MEMORY2 && memory != nullptr && std::strcmp(memory, "refuse") == 0)
    return CUPTI_ERROR_NOT_SUPPORTED;  // a libcupti without memory records
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) g_kernels_off_at = 0;
  g_kinds.insert(kind);
  if (kind == CUPTI_ACTIVITY_KIND_MARKER) InstallNvtxHandlers();
  return CUPTI_SUCCESS;
}

// The device records were made while CUDA started: the fake sends its one lazily anyway.
CUptiResult cuptiActivityEnableAndDump(CUpti_ActivityKind kind) {
  Touch();
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    Log("enable_and_dump", kind);
  }
  return cuptiActivityEnable(kind);
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  Touch();
  std::lock_guard<std::mutex> lock(g_mutex);
  Log("disable", kind);
  if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && g_kinds.count(kind) != 0) g_kernels_off_at = Now();
  g_kinds.erase(kind);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attribute, size_t* size, void* value) {
  Touch();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (attribute != CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER || size == nullptr || *size != sizeof(uint8_t))
    return CUPTI_ERROR_INVALID_PARAMETER;
  g_zeroed_promised = *static_cast<uint8_t*>(value) != 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnableHWTrace(uint8_t enable) {
  Touch();
  const bool driver_initialized = KrakenFakeDriverInitialized();  // takes its own lock
  std::lock_guard<std::mutex> lock(g_mutex);
  const char* mode = std::getenv("KRAKEN_FAKE_CUPTI_HW_TRACE");
  CUptiResult result = !driver_initialized                                        ? CUPTI_ERROR_NOT_INITIALIZED
                       : mode != nullptr && std::strcmp(mode, "supported") == 0 ? CUPTI_SUCCESS
                                                                                  : CUPTI_ERROR_NOT_SUPPORTED;
  Log(enable != 0 ? "hw_trace_on" : "hw_trace_off", result);
  return result;
}

// NVTX's injection entry point (see InstallNvtxHandlers).
int InitializeInjectionNvtx2(const void* (*get_export_table)(uint32_t)) {
  Touch();
  if (get_export_table == nullptr || get_export_table(1) == nullptr) return 0;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_nvtx_export_table = get_export_table;
  InstallNvtxHandlers();
  return 1;
}

CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  Touch();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (enable) g_runtime_ids.insert(cbid);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t) {
  Touch();
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + RecordSize((*record)->kind);
  if (next >= buffer + valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  Touch();
  // A periodic flush delivers up to KRAKEN_FAKE_CUPTI_PER_FLUSH launches; a forced one (at
  // exit) what is left of a finite run, as CUPTI hands over all it holds.
  const int64_t total = Setting("KRAKEN_FAKE_CUPTI_LAUNCHES", 1000);
  int64_t budget = Setting("KRAKEN_FAKE_CUPTI_PER_FLUSH", 1000);
  int64_t first = 0, announce = 0;
  uint64_t horizon = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_request == nullptr) return CUPTI_ERROR_INVALID_OPERATION;
    if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0 && total >= 0) budget = total - g_delivered;
    // Fixed for this flush: else each buffer would get the few launches made while the last
    // one was filled, and the flush would never end.
    horizon = g_kernels_off_at != 0 ? g_kernels_off_at : Now();
    // The launches about to be delivered happen now for a callback subscriber (before their
    // records, as on a GPU), announced without the lock: the subscriber calls back in.
    const int64_t end = total >= 0 ? std::min(total, g_delivered + budget) : g_delivered + budget;
    first = g_announced;
    announce = end > g_announced && g_kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != 0 ? end - g_announced : 0;
    g_announced += announce;
  }
  if (announce > 0 && KrakenFakeAnnounceLaunches != nullptr) KrakenFakeAnnounceLaunches(first, announce);
  std::lock_guard<std::mutex> lock(g_mutex);
  while (DeliverOneBuffer(&budget, horizon)) {
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  Touch();
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  Touch();
  *timestamp = Now();
  return CUPTI_SUCCESS;
}

}  // extern "C"
