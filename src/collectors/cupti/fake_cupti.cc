// libkraken_cupti_fake.so: the part of libcupti's C API the tracer uses, answered without a
// GPU, so that tests (and a GPU validation script rehearsed on a machine without one) run
// the real injection path end to end: loading through KRAKEN_CUPTI_LIBRARY, enabling
// activity kinds, buffer requests and completions, flushes, exit. Each periodic
// cuptiActivityFlushAll delivers up to KRAKEN_FAKE_CUPTI_PER_FLUSH launches (default 1000)
// and a forced one all that is left, until KRAKEN_FAKE_CUPTI_LAUNCHES (default 1000; -1: no
// end) have been delivered. A launch is a
// kernel record (CUpti_ActivityKernel10, 1 us long, every 2 us, stream 7, "fake_kernel")
// and, when its call is enabled, a cudaLaunchKernel record with the same correlation id.
// The first flush also delivers one device record (an H100-like device 0).
#include <cupti.h>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

// fake_range_profiler.cc: announces launches to a CUPTI callback subscriber; absent from
// libkraken_cupti_fake_norange.so (a libcupti without the range profiler).
void KrakenFakeAnnounceLaunches(int64_t first, int64_t count) __attribute__((weak));

namespace {

constexpr uint32_t kLaunchCbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;

std::mutex g_mutex;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::set<int> g_kinds;
std::set<uint32_t> g_runtime_ids;
int64_t g_delivered = 0;
bool g_device_sent = false;
int64_t g_announced = 0;  // launches announced to a callback subscriber
uint64_t g_origin = 0;

uint64_t Now() {
  struct timespec now {};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(now.tv_nsec);
}

int64_t Setting(const char* name, int64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoll(text) : fallback;
}

template <typename T>
size_t Stride() {
  return (sizeof(T) + 7) / 8 * 8;
}

size_t RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return Stride<CUpti_ActivityKernel10>();
    case CUPTI_ACTIVITY_KIND_RUNTIME: return Stride<CUpti_ActivityAPI>();
    case CUPTI_ACTIVITY_KIND_DEVICE: return Stride<CUpti_ActivityDevice5>();
    default: return 8;
  }
}

template <typename T>
void Put(uint8_t* buffer, size_t* used, const T& record) {
  std::memcpy(buffer + *used, &record, sizeof(T));
  *used += Stride<T>();
}

// Fills one buffer with up to *budget launches (and the device record once); returns false
// when nothing was due.
bool DeliverOneBuffer(int64_t* budget) {
  const int64_t total = Setting("KRAKEN_FAKE_CUPTI_LAUNCHES", 1000);
  if (g_kinds.count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == 0) return false;
  if (*budget <= 0 || (total >= 0 && g_delivered >= total)) return false;
  uint8_t* buffer = nullptr;
  size_t size = 0, max_records = 0;
  g_request(&buffer, &size, &max_records);
  if (buffer == nullptr) return false;
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
  const bool calls = g_kinds.count(CUPTI_ACTIVITY_KIND_RUNTIME) != 0 || g_runtime_ids.count(kLaunchCbid) != 0;
  int64_t delivered_now = 0;
  while ((total < 0 || g_delivered < total) && delivered_now < *budget &&
         used + Stride<CUpti_ActivityKernel10>() + Stride<CUpti_ActivityAPI>() <= size) {
    const uint64_t start = g_origin + static_cast<uint64_t>(g_delivered) * 2000;
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

}  // namespace

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
  std::lock_guard<std::mutex> lock(g_mutex);
  g_request = request;
  g_complete = complete;
  g_origin = Now();
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_kinds.insert(kind);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_kinds.erase(kind);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (enable) g_runtime_ids.insert(cbid);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t) { return CUPTI_SUCCESS; }

CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  uint8_t* next = *record == nullptr ? buffer : reinterpret_cast<uint8_t*>(*record) + RecordSize((*record)->kind);
  if (next >= buffer + valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
  // A periodic flush delivers up to KRAKEN_FAKE_CUPTI_PER_FLUSH launches; a forced one (at
  // exit) what is left of a finite run, as CUPTI hands over all it holds.
  const int64_t total = Setting("KRAKEN_FAKE_CUPTI_LAUNCHES", 1000);
  int64_t budget = Setting("KRAKEN_FAKE_CUPTI_PER_FLUSH", 1000);
  int64_t first = 0, announce = 0;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_request == nullptr) return CUPTI_ERROR_INVALID_OPERATION;
    if ((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0 && total >= 0) budget = total - g_delivered;
    // The launches about to be delivered happen now for a callback subscriber (before their
    // records, as on a GPU), announced without the lock: the subscriber calls back in.
    const int64_t end = total >= 0 ? std::min(total, g_delivered + budget) : g_delivered + budget;
    first = g_announced;
    announce = end > g_announced ? end - g_announced : 0;
    g_announced += announce;
  }
  if (announce > 0 && KrakenFakeAnnounceLaunches != nullptr) KrakenFakeAnnounceLaunches(first, announce);
  std::lock_guard<std::mutex> lock(g_mutex);
  while (DeliverOneBuffer(&budget)) {
  }
  return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  *dropped = 0;
  return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t* timestamp) {
  *timestamp = Now();
  return CUPTI_SUCCESS;
}

}  // extern "C"
