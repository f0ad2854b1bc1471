// /metrics rendering for 8 GPUs x 50 series (every exported DCGM family on the GPU, the
// rest on one MIG instance per GPU): p50/p99 of one render over many renders, the way the
// agent renders it (one reused output buffer). Target: p99 < 1 ms. Wall time and this
// thread's CPU time are both reported: on a shared, loaded machine the wall p99 measures
// preemption, the CPU-time p99 the rendering itself.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "exporter/exported_metrics.h"
#include "exporter/exposition.h"
#include "exporter/workload_exposition.h"

int main(int argc, char** argv) {
  using namespace kraken;
  int renders = argc > 1 ? std::atoi(argv[1]) : 20000;
  if (renders < 100) renders = 100;
  SampleBatch batch;
  std::vector<DeviceInfo> devices;
  auto metrics = exporter::ExportedMetrics();
  for (int gpu = 0; gpu < 8; ++gpu) {
    SeriesEntity e;
    e.gpu_index = gpu;
    e.gpu_uuid = "GPU-5b1c7a2e-11aa-4c1e-9f00-00000000000" + std::to_string(gpu);
    e.gpu_name = "NVIDIA H100 80GB HBM3";
    e.pci_bus_id = "00000000:1" + std::to_string(gpu) + ":00.0";
    SeriesEntity mig = e;
    mig.gpu_instance_id = 1;
    mig.mig_profile = "3g.40gb";
    int32_t whole = static_cast<int32_t>(batch.entities.size());
    batch.entities.push_back(e);
    batch.entities.push_back(mig);
    DeviceInfo d;
    d.index = gpu;
    d.uuid = e.gpu_uuid;
    d.minor_number = gpu;
    devices.push_back(d);
    for (int s = 0; s < 50; ++s) {
      int32_t entity = s < static_cast<int>(metrics.size()) ? whole : whole + 1;
      Metric metric = metrics[static_cast<size_t>(s) % metrics.size()].metric;
      batch.values.push_back({metric, entity, 1234.5 + s * 0.37 + gpu, "bench"});
    }
  }
  exporter::AgentStats stats{123456, 0.00042, 0};
  exporter::ExpositionInput input{&batch, &devices, "bench-node-01", &stats};
  // The kraken_* families of the window analysis, every figure present, on each GPU and
  // its MIG instance (16 entities): what RenderMetrics appends.
  std::vector<GpuWindowAnalysis> analyses;
  for (const SeriesEntity& e : batch.entities) {
    GpuWindowAnalysis& a = analyses.emplace_back();
    a.entity = e;
    a.passes = 600;
    a.window_s = 59.9;
    a.gpu_util_p95 = 0.87;
    a.idle_ratio = 0.05;
    a.memory_peak_bytes = 20780679168.0;
    a.workload_type = "unknown";
    a.pooling_action = "keep";
    a.bound = "compute";
  }
  std::string out;
  auto thread_cpu_us = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
  };
  auto at = [](const std::vector<double>& v, double q) {
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
  };
  // The DCGM families alone (as before the kraken_* analysis), then with it appended.
  for (bool with_analysis : {false, true}) {
    std::vector<double> wall;
    std::vector<double> cpu;
    wall.reserve(static_cast<size_t>(renders));
    cpu.reserve(static_cast<size_t>(renders));
    for (int i = 0; i < renders; ++i) {
      auto start = std::chrono::steady_clock::now();
      double cpu_start = thread_cpu_us();
      exporter::RenderExposition(input, out);
      if (with_analysis) exporter::RenderWorkloadWindow(analyses, input, out);
      cpu.push_back(thread_cpu_us() - cpu_start);
      wall.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("exposition render, 8 GPUs x 50 series (%zu values)%s, %zu bytes, %d renders (target p99 < 1000 us):\n"
                "  wall: p50 %.1f us, p99 %.1f us, max %.1f us\n  thread CPU: p50 %.1f us, p99 %.1f us, max %.1f us\n",
                batch.values.size(), with_analysis ? " + kraken_* of 16 entities" : "", out.size(), renders,
                at(wall, 0.5), at(wall, 0.99), wall.back(), at(cpu, 0.5), at(cpu, 0.99), cpu.back());
  }
  return 0;
}
