// From ncu metrics to kraken's model: which metric (raw name such as
// "dram__bytes.sum", or section display name such as "DRAM Throughput") fills which
// field of Kernel, KernelCounters and DeviceInfo. Values arrive in base units (see
// ncu_units.h); a metric is only used when its unit says it is what kraken expects.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "importers/ncu/ncu_table.h"
#include "model/device.h"
#include "model/trace_events.h"

namespace kraken::ncu {

// Any base unit is accepted.
inline constexpr std::string_view kAnyUnit = "*";

// A kernel's metrics, found by name.
class MetricIndex {
 public:
  explicit MetricIndex(const std::vector<NcuMetric>& metrics);

  // The value of the first metric called `name` with base unit `unit`, preferring one
  // whose body-item label contains `label_hint` (roofline sections repeat "SM Frequency").
  std::optional<double> Value(std::string_view name, std::string_view unit = kAnyUnit,
                              std::string_view label_hint = {}) const;
  // The value of the first of `names` that has one.
  std::optional<double> FirstValue(const std::vector<std::string_view>& names,
                                   std::string_view unit = kAnyUnit) const;
  // The value as printed, for metrics that are words (device__attribute_display_name).
  std::optional<std::string> Text(std::string_view name) const;

  const std::vector<NcuMetric>& metrics() const { return metrics_; }

 private:
  const std::vector<NcuMetric>& metrics_;
  std::unordered_map<std::string_view, std::vector<size_t>> by_name_;
};

// What a launch's metrics say about the launch itself.
struct LaunchFacts {
  std::optional<int64_t> duration_ns;
  bool duration_from_cycles = false;  // elapsed cycles / cycles per second
  std::optional<int32_t> registers_per_thread;
  std::optional<int64_t> shared_memory_bytes;  // static + dynamic, per block
  std::optional<int64_t> stream;
  std::optional<int32_t> device;
};

LaunchFacts MapLaunchFacts(const MetricIndex& metrics);

// True when the tensor pipe did matrix-multiply work that no tensor-path op counter
// counted: ncu 2025.3 on an H100 answers "n/a" for the fp16 paths (details page) or leaves
// them out (raw page) for a WMMA fp16 GEMM whose bf16/tf32 paths count 0. The kernel's
// FLOPs are then unknown, not 0: MapKernelCounters leaves every FLOP count out.
bool TensorWorkUncounted(const MetricIndex& metrics);

// Counters measured for one launch; fields stay empty when ncu did not measure them.
KernelCounters MapKernelCounters(const MetricIndex& metrics);
bool HasAnyCounter(const KernelCounters& counters);

// Fills the fields of `device` that are still unset from the raw page's
// device__attribute_* metrics.
void MapDeviceAttributes(const MetricIndex& metrics, DeviceInfo* device);

}  // namespace kraken::ncu
