// /metrics rendering for 8 GPUs x 50 series (every exported DCGM family on the GPU, the
// rest on one MIG instance per GPU): p50/p99 of one render over many renders, the way the
// agent renders it (one reused output buffer). Target: p99 < 1 ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "exporter/exported_metrics.h"
#include "exporter/exposition.h"

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
  std::string out;
  std::vector<double> micros;
  micros.reserve(static_cast<size_t>(renders));
  for (int i = 0; i < renders; ++i) {
    auto start = std::chrono::steady_clock::now();
    exporter::RenderExposition(input, out);
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(micros.begin(), micros.end());
  auto at = [&](double q) { return micros[static_cast<size_t>(q * static_cast<double>(micros.size() - 1))]; };
  std::printf("exposition render, 8 GPUs x 50 series (%zu values, %zu bytes): p50 %.1f us, p99 %.1f us, max %.1f us "
              "over %d renders (target p99 < 1000 us)\n",
              batch.values.size(), out.size(), at(0.5), at(0.99), micros.back(), renders);
  return 0;
}
