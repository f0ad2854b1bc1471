// The agent's periodic window analysis (agent/workload_window.h) on a full default ring:
// 600 passes of the replayed 8 x H100 node (tests/fixtures/nvml/h100x8.nvml) through the
// real sampler, analysed repeatedly. Prints the CPU time of one analysis and what it costs
// at the default agent.analysis_interval of 15 s (target for the whole agent: < 0.5 % of
// one core).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "agent/workload_window.h"
#include "build_paths.h"
#include "collectors/nvml/nvml_sampler.h"

int main(int argc, char** argv) {
  using namespace kraken;
  int runs = argc > 1 ? std::max(5, std::atoi(argv[1])) : 50;
  ::setenv("KRAKEN_NVML_REPLAY", kraken::build_paths::kNvmlBenchCapture, 1);
  nvml::NvmlSamplerOptions options;
  options.proc_root = "";
  auto session = nvml::OpenNvmlSession(kraken::build_paths::kNvmlBenchLibrary, options);
  if (!session.ok()) {
    std::fprintf(stderr, "kraken: error: %s\n", session.status().message().c_str());
    return 2;
  }
  std::vector<SampleBatch> passes(600);  // agent.ring 1m at 100 ms
  for (SampleBatch& b : passes) session->sampler->Sample(b);
  std::vector<const SampleBatch*> window;
  size_t values = 0;
  for (const SampleBatch& b : passes) {
    window.push_back(&b);
    values += b.values.size();
  }
  auto thread_cpu_us = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
  };
  std::vector<double> cpu;
  size_t entities = 0;
  for (int i = 0; i < runs; ++i) {
    double start = thread_cpu_us();
    entities = agent::AnalyzeWorkloadWindow(window, session->sampler->devices(), "bench").size();
    cpu.push_back(thread_cpu_us() - start);
  }
  std::sort(cpu.begin(), cpu.end());
  double p50 = cpu[cpu.size() / 2], p99 = cpu[static_cast<size_t>(0.99 * static_cast<double>(cpu.size() - 1))];
  std::printf("window analysis, 600 passes x 8 GPUs (%zu values, %zu entities), %d runs: thread CPU p50 %.0f us, "
              "p99 %.0f us; every 15 s: %.4f %% of one core\n",
              values, entities, runs, p50, p99, 100 * p50 / 15e6);
  return 0;
}
