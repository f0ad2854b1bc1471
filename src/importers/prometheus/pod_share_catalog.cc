#include "importers/prometheus/pod_share_catalog.h"

namespace kraken::prometheus {
namespace {

// Units as dcgm-exporter's for the device metric each stands for: % and MiB.
constexpr PodShareMetric kPodShareMetrics[] = {
    {"kraken_pod_gpu_sm_util", Metric::kGpuUtilPct, 1,
     "SM utilization of the pod's processes on this GPU: the sum of nvmlDeviceGetProcessUtilization smUtil (in %)."},
    {"kraken_pod_gpu_mem_copy_util", Metric::kMemCopyUtilPct, 1,
     "Memory-controller utilization of the pod's processes on this GPU: the sum of "
     "nvmlDeviceGetProcessUtilization memUtil (in %)."},
    {"kraken_pod_gpu_fb_used", Metric::kFbUsedBytes, 1024.0 * 1024.0,
     "Framebuffer memory used by the pod's processes on this GPU or MIG instance, from the running-process list "
     "(in MiB)."},
    {"kraken_pod_gpu_processes", Metric::kOther, 1,
     "Processes of the pod that NVML lists on this GPU or MIG instance."},
};

}  // namespace

std::span<const PodShareMetric> PodShareMetrics() { return kPodShareMetrics; }

const PodShareMetric* FindPodShareMetric(std::string_view name) {
  for (const PodShareMetric& m : kPodShareMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace kraken::prometheus
