#include "importers/kineto/kineto_range_counters.h"

#include <optional>
#include <string>

namespace kraken::kineto {
namespace {

// Sums of the three instruction counts of one precision; nothing when none was recorded.
struct OpSum {
  double add = 0, mul = 0, fma = 0;
  bool seen = false;
  std::optional<double> Flops() const {
    // One FMA is two floating-point operations (NVIDIA's roofline convention).
    return seen ? std::optional<double>(add + mul + 2 * fma) : std::nullopt;
  }
};

bool HasOp(std::string_view key, std::string_view op) {
  return key.find("_op_" + std::string(op) + "_pred_on") != std::string_view::npos;
}

// Adds `value` to the matching op of a precision ("fadd", "fmul", "ffma" for 'f').
void AddOp(std::string_view key, double value, char precision, OpSum* sum) {
  const std::string prefix(1, precision);
  if (HasOp(key, prefix + "add")) sum->add = value, sum->seen = true;
  if (HasOp(key, prefix + "mul")) sum->mul = value, sum->seen = true;
  if (HasOp(key, prefix + "fma")) sum->fma = value, sum->seen = true;
}

}  // namespace

KernelCounters RangeCountersFromArgs(const std::vector<std::pair<std::string_view, double>>& numeric_args) {
  KernelCounters counters;
  OpSum fp32, fp64, fp16;
  std::optional<double> dram_total, dram_read, dram_write;
  for (const auto& [key, value] : numeric_args) {
    AddOp(key, value, 'f', &fp32);
    AddOp(key, value, 'd', &fp64);
    AddOp(key, value, 'h', &fp16);
    if (key == "dram__bytes.sum") dram_total = value;
    if (key == "dram__bytes_read.sum") dram_read = value;
    if (key == "dram__bytes_write.sum") dram_write = value;
    if (key == "sm__throughput.avg.pct_of_peak_sustained_elapsed") counters.sm_throughput_pct = value;
    if (key == "dram__throughput.avg.pct_of_peak_sustained_elapsed") counters.dram_throughput_pct = value;
    if (key == "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
      counters.memory_throughput_pct = value;
    if (key == "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed")
      counters.tensor_pipe_active_pct = value;
  }
  counters.fp32_flops = fp32.Flops();
  counters.fp64_flops = fp64.Flops();
  counters.fp16_flops = fp16.Flops();
  if (dram_total) {
    counters.dram_bytes = dram_total;
  } else if (dram_read && dram_write) {
    counters.dram_bytes = *dram_read + *dram_write;
  }
  return counters;
}

}  // namespace kraken::kineto
