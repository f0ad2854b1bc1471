// Sampling passes shaped like a real 8-GPU node at 10 Hz, for the store's tests and
// benchmark: 25 GPU metrics per GPU and 3 per-process metrics for 2 processes per GPU,
// with values as NVML and DCGM give them (whole percents, MHz and degrees that rarely
// move, milliwatt-resolution power, byte counters, ratios with full mantissas).
#pragma once

#include <cstdint>
#include <string>

#include "model/sample_batch.h"

namespace kraken::store::testing {

struct NodeShape {
  int gpus = 8;
  int processes_per_gpu = 2;
};

inline constexpr Metric kGpuMetrics[] = {
    Metric::kGpuUtilPct,        Metric::kMemCopyUtilPct,     Metric::kFbUsedBytes,       Metric::kFbFreeBytes,
    Metric::kFbTotalBytes,      Metric::kFbReservedBytes,    Metric::kPowerW,            Metric::kPowerLimitW,
    Metric::kEnergyMj,          Metric::kSmClockMhz,         Metric::kMemClockMhz,       Metric::kGpuTempC,
    Metric::kMemTempC,          Metric::kPcieTxBytesPerS,    Metric::kPcieRxBytesPerS,   Metric::kNvlinkTxBytesPerS,
    Metric::kNvlinkRxBytesPerS, Metric::kGrEngineActiveRatio, Metric::kSmActiveRatio,    Metric::kSmOccupancyRatio,
    Metric::kTensorActiveRatio, Metric::kDramActiveRatio,    Metric::kFp64ActiveRatio,   Metric::kFp32ActiveRatio,
    Metric::kFp16ActiveRatio};
inline constexpr Metric kProcessMetrics[] = {Metric::kProcessSmUtilPct, Metric::kProcessMemUtilPct,
                                             Metric::kProcessUsedMemoryBytes};
inline constexpr int kGpuMetricCount = static_cast<int>(std::size(kGpuMetrics));
inline constexpr int kProcessMetricCount = static_cast<int>(std::size(kProcessMetrics));

inline int ValuesPerPass(const NodeShape& shape) {
  return shape.gpus * (kGpuMetricCount + shape.processes_per_gpu * kProcessMetricCount);
}

// A deterministic noise source (splitmix64).
inline uint64_t Noise(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The value of metric `m` of series `key` at pass `pass`, with each kind's real texture.
inline double SyntheticValue(Metric m, uint64_t key, uint64_t pass) {
  uint64_t r = Noise(key * 1'000'003 + pass);
  switch (m) {
    case Metric::kGpuUtilPct:
    case Metric::kMemCopyUtilPct:
    case Metric::kProcessSmUtilPct:
    case Metric::kProcessMemUtilPct: return static_cast<double>(r % 101);
    case Metric::kFbUsedBytes:
    case Metric::kProcessUsedMemoryBytes:  // moves every ~10 s by whole MiB
      return static_cast<double>((Noise(key + pass / 100) % 80'000) << 20);
    case Metric::kFbFreeBytes: return static_cast<double>((81'559 - Noise(key + pass / 100) % 80'000) << 20);
    case Metric::kFbTotalBytes: return 85'520'809'984.0;
    case Metric::kFbReservedBytes: return 566'231'040.0;
    case Metric::kPowerW: return static_cast<double>(60'000 + r % 640'000) / 1000.0;  // mW resolution
    case Metric::kPowerLimitW: return 700.0;
    case Metric::kEnergyMj: return static_cast<double>(pass * 45'000 + r % 1000);
    case Metric::kSmClockMhz: return (pass / 50) % 4 == 0 ? 1755.0 : 1980.0;
    case Metric::kMemClockMhz: return 2619.0;
    case Metric::kGpuTempC:
    case Metric::kMemTempC: return static_cast<double>(40 + Noise(key + pass / 30) % 30);
    default:  // byte rates and DCGM profiling ratios: full-precision doubles
      return m >= Metric::kGrEngineActiveRatio ? static_cast<double>(r >> 11) / 9007199254740992.0
                                               : static_cast<double>(r % 25'000'000'000ull);
  }
}

// One pass at time `time_ns`.
inline SampleBatch MakeNodeBatch(const NodeShape& shape, uint64_t pass, TimeNs time_ns) {
  SampleBatch batch;
  batch.time_ns = time_ns;
  batch.entities.reserve(static_cast<size_t>(shape.gpus * (1 + shape.processes_per_gpu)));
  batch.values.reserve(static_cast<size_t>(ValuesPerPass(shape)));
  for (int g = 0; g < shape.gpus; ++g) {
    SeriesEntity gpu;
    gpu.gpu_index = g;
    gpu.gpu_uuid = "GPU-5c1e-" + std::to_string(g);
    gpu.gpu_name = "NVIDIA H100 80GB HBM3";
    auto gpu_entity = static_cast<int32_t>(batch.entities.size());
    batch.entities.push_back(gpu);
    for (int mi = 0; mi < kGpuMetricCount; ++mi) {
      uint64_t key = static_cast<uint64_t>(g * 100 + mi);
      batch.values.push_back({kGpuMetrics[mi], gpu_entity, SyntheticValue(kGpuMetrics[mi], key, pass), ""});
    }
    for (int p = 0; p < shape.processes_per_gpu; ++p) {
      SeriesEntity process = gpu;
      process.pid = 40'000 + g * 10 + p;
      process.process_name = p == 0 ? "python3" : "tritonserver";
      auto process_entity = static_cast<int32_t>(batch.entities.size());
      batch.entities.push_back(process);
      for (int mi = 0; mi < kProcessMetricCount; ++mi) {
        uint64_t key = static_cast<uint64_t>(10'000 + g * 100 + p * 10 + mi);
        batch.values.push_back(
            {kProcessMetrics[mi], process_entity, SyntheticValue(kProcessMetrics[mi], key, pass), ""});
      }
    }
  }
  return batch;
}

// Pass times: 100 ms apart with up to 2 ms of scheduling jitter, from a fixed epoch.
inline TimeNs PassTime(uint64_t pass) {
  return 1'750'000'000'000'000'000 + static_cast<TimeNs>(pass) * 100'000'000 +
         static_cast<TimeNs>(Noise(pass) % 2'000'000);
}

}  // namespace kraken::store::testing
