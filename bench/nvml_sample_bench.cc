// Measures one sampling pass of the NVML collector over the 8-GPU replay fixture
// (tests/fixtures/nvml/h100x8.nvml) through libkraken_nvml_replay.so and the real dlopen
// path: µs per pass and per GPU, best of 5 runs of 2000 passes. The replay's own cost
// (a lock and a handle lookup per call) is included, so a driver's figures will differ;
// this tracks the collector's overhead.
//
// Usage: kraken_nvml_sample_bench [CAPTURE] [REPLAY_LIBRARY]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "build_paths.h"
#include "collectors/nvml/nvml_sampler.h"

int main(int argc, char** argv) {
  std::string capture = argc > 1 ? argv[1] : kraken::build_paths::kNvmlBenchCapture;
  std::string library = argc > 2 ? argv[2] : kraken::build_paths::kNvmlBenchLibrary;
  ::setenv("KRAKEN_NVML_REPLAY", capture.c_str(), 1);
  kraken::nvml::NvmlSamplerOptions options;
  options.proc_root = "";  // the captured pids do not exist here
  auto session = kraken::nvml::OpenNvmlSession(library, options);
  if (!session.ok()) {
    std::fprintf(stderr, "kraken_nvml_sample_bench: %s\n", session.status().message().c_str());
    return 2;
  }
  kraken::nvml::NvmlSampler& sampler = *session->sampler;
  size_t gpus = sampler.devices().size();
  kraken::SampleBatch batch;
  for (int i = 0; i < 100; ++i) sampler.Sample(batch);  // warm: every buffer sized
  constexpr int kPasses = 2000;
  double best_us = 1e300;
  size_t values = 0;
  for (int run = 0; run < 5; ++run) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kPasses; ++i) {
      sampler.Sample(batch);
      values += batch.values.size();
    }
    std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
    best_us = std::min(best_us, elapsed.count() / kPasses);
  }
  std::printf(
      "{\"bench\": \"nvml_sample\", \"capture\": \"%s\", \"gpus\": %zu, \"us_per_pass\": %.2f, \"us_per_gpu\": %.2f, "
      "\"values_per_pass\": %.1f}\n",
      capture.c_str(), gpus, best_us, gpus > 0 ? best_us / static_cast<double>(gpus) : 0.0,
      static_cast<double>(values) / (5.0 * kPasses));
  return 0;
}
