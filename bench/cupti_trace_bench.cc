// The CUPTI tracer's own cost, off the GPU: how fast its writer thread turns activity
// records into the Kineto trace, and what a buffer hand-over costs the thread CUPTI calls
// it on. Records are real CUpti_ActivityKernel10 / CUpti_ActivityAPI structs (a kernel and
// its cudaLaunchKernel per launch), packed into 8 MiB buffers as CUPTI delivers them.
// Usage: kraken_cupti_trace_bench [launches] [output.json]
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "collectors/cupti/api_names.h"
#include "collectors/cupti/trace_session.h"

namespace {

using kraken::cupti::TraceSession;
constexpr size_t kKernelBytes = (sizeof(CUpti_ActivityKernel10) + 7) / 8 * 8;
constexpr size_t kApiBytes = (sizeof(CUpti_ActivityAPI) + 7) / 8 * 8;

CUptiResult NextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  uint8_t* next = buffer;
  if (*record != nullptr) {
    auto* current = reinterpret_cast<uint8_t*>(*record);
    next = current + ((*record)->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? kApiBytes : kKernelBytes);
  }
  if (next >= buffer + valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}

uint32_t LaunchCbid() {
  for (const auto& api : kraken::cupti::ApiNameTable(kraken::cupti::ApiDomain::kRuntime))
    if (kraken::cupti::StripVersionSuffix(api.name) == "cudaLaunchKernel") return api.cbid;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const int64_t launches = argc > 1 ? std::strtoll(argv[1], &end, 10) : 1'000'000;
  if (argc > 3 || (argc > 1 && (end == argv[1] || *end != '\0' || launches < 1))) {
    std::fprintf(stderr, "usage: kraken_cupti_trace_bench [LAUNCHES (default 1000000)] [OUTPUT.json]\n");
    return 2;
  }
  const std::string path = argc > 2 ? argv[2] : "/tmp/kraken_cupti_bench.json";
  kraken::cupti::SessionOptions options;
  options.output_path = path;
  kraken::cupti::SessionHooks hooks;
  hooks.next_record = NextRecord;
  std::string error;
  auto session = TraceSession::Start(options, hooks, &error);
  if (session == nullptr) {
    std::fprintf(stderr, "kraken: error: %s\n", error.c_str());
    return 2;
  }
  const uint32_t cbid = LaunchCbid();
  using Clock = std::chrono::steady_clock;
  Clock::duration handover{};
  const auto start = Clock::now();
  const std::clock_t cpu_start = std::clock();
  int64_t launch = 0;
  while (launch < launches) {
    uint8_t* buffer = nullptr;
    size_t size = 0, max_records = 0;
    session->RequestBuffer(&buffer, &size, &max_records);
    size_t used = 0;
    for (; launch < launches && used + kKernelBytes + kApiBytes <= size; ++launch) {
      CUpti_ActivityAPI api{};
      api.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
      api.cbid = cbid;
      api.start = static_cast<uint64_t>(launch) * 5000 + 1'000'000;
      api.end = api.start + 2500;
      api.processId = 4242, api.threadId = 4242;
      api.correlationId = static_cast<uint32_t>(launch + 1);
      std::memcpy(buffer + used, &api, sizeof(api));
      used += kApiBytes;
      CUpti_ActivityKernel10 k{};
      k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
      k.name = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_";
      k.start = api.end + 3000, k.end = k.start + 1500;
      k.streamId = 7, k.contextId = 1, k.correlationId = api.correlationId;
      k.gridX = 1024, k.gridY = k.gridZ = 1, k.blockX = 128, k.blockY = k.blockZ = 1;
      k.registersPerThread = 32;
      std::memcpy(buffer + used, &k, sizeof(k));
      used += kKernelBytes;
    }
    const auto before = Clock::now();
    session->CompleteBuffer(buffer, used);
    handover += Clock::now() - before;
  }
  if (!session->Finish()) std::fprintf(stderr, "kraken: error: %s\n", session->write_error().c_str());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // CPU time of both threads (the writer, and this one making records): unlike the wall
  // time it does not grow when other processes take the cores.
  const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  struct stat st {};
  stat(path.c_str(), &st);
  const double records = 2.0 * static_cast<double>(launches);
  std::printf("cupti tracer: %lld launches (kernel + cudaLaunchKernel records) in %.3f s: %.2f M records/s, "
              "%.0f ns wall and %.0f ns CPU per launch; %.0f bytes of trace per launch; buffer hand-over %.2f us "
              "on CUPTI's thread (%lld buffers)\n",
              static_cast<long long>(launches), seconds, records / seconds / 1e6, seconds * 1e9 / launches,
              cpu_seconds * 1e9 / launches,
              static_cast<double>(st.st_size) / launches,
              std::chrono::duration<double, std::micro>(handover).count() /
                  static_cast<double>((launches * (kKernelBytes + kApiBytes)) / (8 << 20) + 1),
              static_cast<long long>((launches * (kKernelBytes + kApiBytes)) / (8 << 20) + 1));
  std::remove(path.c_str());
  return 0;
}
