#include "profiling/run_summary_kernels.h"

#include <string>

#include "analysis/boundness.h"
#include "analysis/characterize.h"
#include "base/text_table.h"

namespace kraken::profiling {
namespace {

std::string Percent(const BoundMix& mix, TimeNs part) { return FormatFixed(mix.Pct(part), 1) + "%"; }

std::string WorkloadTypeReason(const WorkloadTypeResult& type, int64_t kernels) {
  std::string reason = "from the " + std::to_string(kernels) + " traced kernels, " + type.confidence + " confidence";
  for (size_t i = 0; i < type.evidence.size(); ++i) reason += (i == 0 ? ": " : "; ") + type.evidence[i];
  return reason;
}

std::string BoundReason(const KernelSummary& kernels, const std::string& nvml_bound, const std::string& nvml_reason) {
  const BoundMix& mix = kernels.mix;
  return "kernel time of the " + std::to_string(kernels.kernel_count) + " traced kernels: compute " +
         Percent(mix, mix.compute_ns) + ", memory " + Percent(mix, mix.memory_ns) + ", latency " +
         Percent(mix, mix.latency_ns) + ", mixed " + Percent(mix, mix.mixed_ns) + ", unclassified " +
         Percent(mix, mix.unknown_ns) + "; NVML over the whole run: " + nvml_bound + ", " + nvml_reason;
}

}  // namespace

void ApplyKernelTimeline(const Profile& timeline, RunSummary* summary) {
  if (timeline.kernels.empty()) return;
  const WorkloadReport report = CharacterizeWorkload(timeline);
  summary->workload_type = WorkloadTypeName(report.workload_type.type);
  summary->workload_type_reason = WorkloadTypeReason(report.workload_type, report.kernels.kernel_count);
  if (report.kernels.kernel_count == 0) return;
  summary->bound_reason = BoundReason(report.kernels, summary->bound, summary->bound_reason);
  summary->bound = BoundnessName(report.kernels.mix.Dominant());
}

}  // namespace kraken::profiling
