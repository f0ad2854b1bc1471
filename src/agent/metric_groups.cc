#include "agent/metric_groups.h"

#include <algorithm>

namespace kraken::agent {

bool MetricEnabled(const config::MetricGroups& g, Metric metric) {
  switch (metric) {
    case Metric::kGpuUtilPct:
    case Metric::kMemCopyUtilPct:
    case Metric::kEncoderUtilPct:
    case Metric::kDecoderUtilPct: return g.utilization;
    case Metric::kFbUsedBytes:
    case Metric::kFbFreeBytes:
    case Metric::kFbTotalBytes:
    case Metric::kFbReservedBytes: return g.memory;
    case Metric::kPowerW:
    case Metric::kPowerLimitW:
    case Metric::kEnergyMj: return g.power;
    case Metric::kSmClockMhz:
    case Metric::kMemClockMhz: return g.clocks;
    case Metric::kGpuTempC:
    case Metric::kMemTempC: return g.temperature;
    case Metric::kPcieTxBytesPerS:
    case Metric::kPcieRxBytesPerS:
    case Metric::kPcieReplayCount: return g.pcie;
    case Metric::kNvlinkTxBytesPerS:
    case Metric::kNvlinkRxBytesPerS: return g.nvlink;
    case Metric::kGrEngineActiveRatio:
    case Metric::kSmActiveRatio:
    case Metric::kSmOccupancyRatio:
    case Metric::kTensorActiveRatio:
    case Metric::kDramActiveRatio:
    case Metric::kFp64ActiveRatio:
    case Metric::kFp32ActiveRatio:
    case Metric::kFp16ActiveRatio: return g.profiling;
    case Metric::kXidLast:
    case Metric::kEccCorrectedVolatileCount:
    case Metric::kEccUncorrectedVolatileCount:
    case Metric::kRemappedRowsCorrectableCount:
    case Metric::kRemappedRowsUncorrectableCount:
    case Metric::kRemappedRowsPending:
    case Metric::kRemappedRowsFailure:
    case Metric::kRetiredPagesSbeCount:
    case Metric::kRetiredPagesDbeCount:
    case Metric::kRetiredPagesPending:
    case Metric::kNvlinkCrcFlitErrorCount:
    case Metric::kNvlinkCrcDataErrorCount:
    case Metric::kNvlinkReplayErrorCount:
    case Metric::kNvlinkRecoveryErrorCount: return g.errors;
    case Metric::kProcessSmUtilPct:
    case Metric::kProcessMemUtilPct:
    case Metric::kProcessUsedMemoryBytes: return g.processes;
    default: return true;
  }
}

void CopyEnabledMetrics(const config::MetricGroups& groups, const SampleBatch& in, SampleBatch& out,
                        BatchSpare* spare) {
  out.time_ns = in.time_ns;
  if (spare != nullptr) {
    ResizeKeeping(out.entities, in.entities.size(), spare->entities);
  } else {
    out.entities.resize(in.entities.size());
  }
  std::copy(in.entities.begin(), in.entities.end(), out.entities.begin());
  size_t kept = 0;
  for (const SampleBatch::Value& v : in.values) {
    if (!MetricEnabled(groups, v.metric)) continue;
    if (kept == out.values.size()) {
      if (spare != nullptr && !spare->values.empty()) {
        out.values.push_back(std::move(spare->values.back()));
        spare->values.pop_back();
      } else {
        out.values.emplace_back();
      }
    }
    out.values[kept++] = v;  // copy-assignment keeps the slot's string buffer
  }
  if (spare != nullptr) {
    ResizeKeeping(out.values, kept, spare->values);
  } else {
    out.values.resize(kept);
  }
}

void KeepRequestedMetrics(const std::vector<DevicePlan>& plans, SampleBatch& batch, BatchSpare& spare) {
  if (std::none_of(plans.begin(), plans.end(), [](const DevicePlan& p) { return p.metrics.has_value(); })) return;
  size_t kept = 0;
  for (size_t i = 0; i < batch.values.size(); ++i) {
    const SampleBatch::Value& v = batch.values[i];
    int32_t gpu = v.entity >= 0 && static_cast<size_t>(v.entity) < batch.entities.size()
                      ? batch.entities[static_cast<size_t>(v.entity)].gpu_index
                      : -1;
    bool limited = gpu >= 0 && static_cast<size_t>(gpu) < plans.size() && plans[static_cast<size_t>(gpu)].metrics;
    if (limited && !MetricEnabled(*plans[static_cast<size_t>(gpu)].metrics, v.metric)) continue;
    if (kept != i) std::swap(batch.values[kept], batch.values[i]);
    ++kept;
  }
  ResizeKeeping(batch.values, kept, spare.values);
}

}  // namespace kraken::agent
