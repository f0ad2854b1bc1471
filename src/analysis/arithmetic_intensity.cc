#include "analysis/arithmetic_intensity.h"

#include <vector>

namespace kraken {
namespace {

// The operations of one counter set, or nothing when no FLOP counter was collected.
std::optional<double> CountedFlops(const KernelCounters& counters) {
  std::optional<double> total;
  for (const std::optional<double>& part :
       {counters.fp64_flops, counters.fp32_flops, counters.fp16_flops, counters.tensor_flops})
    if (part) total = total.value_or(0) + *part;
  return total;
}

void AddCounters(const Profile& profile, int32_t index, WorkloadIntensity* sum) {
  if (index < 0 || static_cast<size_t>(index) >= profile.kernel_counters.size()) return;
  const KernelCounters& counters = profile.kernel_counters[static_cast<size_t>(index)];
  std::optional<double> flops = CountedFlops(counters);
  if (!flops || !counters.dram_bytes || *counters.dram_bytes <= 0) return;
  sum->flops += *flops;
  sum->dram_bytes += *counters.dram_bytes;
  ++sum->measured;
}

}  // namespace

std::optional<WorkloadIntensity> MeasureWorkloadIntensity(const Profile& profile) {
  WorkloadIntensity sum;
  // A kernel tied to its profiler range (kraken's tracer) shares the range's counters:
  // each counter set counts once.
  std::vector<bool> counted(profile.kernel_counters.size(), false);
  auto add_once = [&](int32_t index) {
    if (index < 0 || static_cast<size_t>(index) >= counted.size() || counted[static_cast<size_t>(index)]) return;
    counted[static_cast<size_t>(index)] = true;
    AddCounters(profile, index, &sum);
  };
  for (const Kernel& kernel : profile.kernels) add_once(kernel.counters_index);
  for (const ProfilerRange& range : profile.profiler_ranges) add_once(range.counters_index);
  if (sum.measured == 0) return std::nullopt;
  return sum;
}

}  // namespace kraken
