#include "analysis/mig/gpu_need.h"

#include <algorithm>

namespace kraken {

GpuNeed EstimateGpuNeed(const WorkloadDemand& d) {
  GpuNeed n;
  n.device_memory_bytes = d.device_memory_bytes;
  n.device_sm_count = d.device_sm_count;
  double scale = 1;
  std::string scaled;
  if (d.mig_instance_sm_count > 0 && d.device_sm_count > 0) {
    scale = static_cast<double>(d.mig_instance_sm_count) / d.device_sm_count;
    scaled = " x MIG instance SMs " + std::to_string(d.mig_instance_sm_count) + "/" + std::to_string(d.device_sm_count);
  }
  if (d.sm_active.measured) {
    n.compute_measured = true;
    n.compute_mean = d.sm_active.mean * scale;
    n.compute_p95 = d.sm_active.p95 * scale;
    n.compute_max = d.sm_active.max * scale;
    n.compute_basis = "sm_active (" + d.sm_active.basis + ")" + scaled;
  } else if (d.gpu_busy.measured && d.sm_fill > 0) {
    n.compute_measured = true;
    n.compute_mean = d.gpu_busy.mean * d.sm_fill * scale;
    n.compute_p95 = d.gpu_busy.p95 * d.sm_fill * scale;
    n.compute_max = d.gpu_busy.max * d.sm_fill * scale;
    n.compute_basis = "gpu_busy x sm_fill (" + d.gpu_busy.basis + ")" + scaled;
  } else if (d.gpu_busy.measured) {
    n.compute_measured = true;
    n.compute_mean = d.gpu_busy.mean * scale;
    n.compute_p95 = d.gpu_busy.p95 * scale;
    n.compute_max = d.gpu_busy.max * scale;
    n.compute_basis = "gpu_busy, kernels assumed to fill the GPU (" + d.gpu_busy.basis + ")" + scaled;
  }
  // A mostly idle series has a p95 below its mean (most bins are 0); the need is never
  // less than the mean.
  n.compute_p95 = std::max(n.compute_p95, n.compute_mean);
  n.compute_max = std::max(n.compute_max, n.compute_p95);
  n.compute_mean = std::clamp(n.compute_mean, 0.0, 1.0);
  n.compute_p95 = std::clamp(n.compute_p95, 0.0, 1.0);
  n.compute_max = std::clamp(n.compute_max, 0.0, 1.0);
  if (d.memory_bytes.measured) {
    n.memory_measured = true;
    n.memory_bytes = d.memory_bytes.max;
    n.memory_basis = d.memory_bytes.basis + ", peak";
    if (d.device_memory_bytes > 0) n.memory_share = std::min(1.0, n.memory_bytes / d.device_memory_bytes);
  }
  return n;
}

Explanation ExplainGpuNeed(const GpuNeed& n) {
  Explanation e;
  if (n.compute_measured) {
    e.Input("compute need, mean", n.compute_mean, "ratio of the GPU's SMs", n.compute_basis);
    e.Input("compute need, p95", n.compute_p95, "ratio of the GPU's SMs", n.compute_basis);
  } else {
    e.Assume("compute need not measured (no SM activity or busy series)");
  }
  if (n.memory_measured) {
    e.Input("peak memory", n.memory_bytes, "B", n.memory_basis);
    if (n.device_memory_bytes > 0) e.Input("device memory", n.device_memory_bytes, "B", "device catalog");
  } else {
    e.Assume("memory footprint not measured");
  }
  if (n.device_sm_count > 0) e.Input("device SMs", n.device_sm_count, "", "device catalog / trace");
  return e;
}

}  // namespace kraken
