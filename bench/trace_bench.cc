// Measures a full `kraken analyze` of one trace: import (decompression included when
// the file is gzip) plus every analysis, on one core. Prints one line of JSON with the
// throughput in MB/s of uncompressed JSON and the process's peak resident memory.
// One file per process, so that peak RSS belongs to that file alone (scripts/bench.sh).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis/characterize.h"
#include "analysis/insights/path_insights.h"
#include "base/byte_stream.h"
#include "importers/registry.h"

namespace {

// Size of the decompressed content, measured before the timed run.
uint64_t UncompressedBytes(const std::string& path) {
  auto file = kraken::OpenFileStream(path);
  if (!file.ok()) return 0;
  std::unique_ptr<kraken::ByteStream> stream = std::move(file).value();
  auto head = kraken::ReadUpTo(*stream, 2);
  if (!head.ok()) return 0;
  stream = kraken::MakePrefixedStream(*head, std::move(stream));
  if (kraken::LooksGzipped(*head)) stream = kraken::MakeGzipStream(std::move(stream));
  std::string buffer(1 << 20, '\0');
  uint64_t total = 0;
  while (true) {
    auto n = stream->Read(buffer.data(), buffer.size());
    if (!n.ok() || *n == 0) break;
    total += *n;
  }
  return total;
}

// CPU seconds (user + system) this thread has used: on a shared machine the wall time
// includes waiting for a core, the CPU time does not.
double ThreadCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE [REPEAT]\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  int repeat = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  uint64_t bytes = UncompressedBytes(path);
  double best_import = 1e30, best_total = 1e30, best_analysis = 1e30, best_insights = 1e30, best_cpu = 1e30;
  size_t events = 0;
  for (int i = 0; i < repeat; ++i) {
    const double cpu0 = ThreadCpuSeconds();
    auto t0 = std::chrono::steady_clock::now();
    auto profiles = kraken::ImportFile(kraken::BuiltinImporters(), path);
    auto t1 = std::chrono::steady_clock::now();
    if (!profiles.ok()) {
      std::fprintf(stderr, "%s\n", profiles.status().message().c_str());
      return 2;
    }
    events = 0;
    double insights_s = 0;
    for (const auto& p : *profiles) {
      kraken::WorkloadReport report = kraken::CharacterizeWorkload(p);
      auto before_insights = std::chrono::steady_clock::now();
      kraken::PathInsights insights = kraken::AnalyzePathInsights(p);  // critical path, kernel sequences
      insights_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - before_insights).count();
      events += p.kernels.size() + p.memory_ops.size() + p.cpu_ops.size() + p.runtime_calls.size();
    }
    auto t2 = std::chrono::steady_clock::now();
    best_insights = std::min(best_insights, insights_s);
    best_cpu = std::min(best_cpu, ThreadCpuSeconds() - cpu0);
    best_import = std::min(best_import, std::chrono::duration<double>(t1 - t0).count());
    best_total = std::min(best_total, std::chrono::duration<double>(t2 - t0).count());
    best_analysis = std::min(best_analysis, std::chrono::duration<double>(t2 - t1).count());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double rss = static_cast<double>(usage.ru_maxrss) * 1024.0;
  std::printf(
      "{\"file\": \"%s\", \"uncompressed_mb\": %.1f, \"records\": %zu, \"import_s\": %.3f, \"analyze_total_s\": %.3f, "
      "\"analysis_ms\": %.1f, \"insights_ms\": %.1f, \"mb_per_s\": %.0f, \"cpu_s\": %.3f, \"mb_per_cpu_s\": %.0f, \"peak_rss_mb\": %.1f, \"rss_over_size\": %.2f}\n",
      path.c_str(), static_cast<double>(bytes) / 1e6, events, best_import, best_total, best_analysis * 1000, best_insights * 1000,
      static_cast<double>(bytes) / 1e6 / best_total, best_cpu, static_cast<double>(bytes) / 1e6 / best_cpu, rss / 1e6, rss / static_cast<double>(bytes));
  return 0;
}
