// Per-pod use of shared GPUs (docs/agent.md "Per-pod use on shared GPUs"): the process
// values of one sampling pass (NVML's per-process SM/memory utilization and running-process
// memory), summed per (pod, namespace, container, GPU or MIG instance), and rendered as the
// kraken_pod_gpu_* families of importers/prometheus/pod_share_catalog.h with
// dcgm-exporter's labels. Pure: batch in, shares / text out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "exporter/exposition.h"
#include "model/sample_batch.h"

namespace kraken::exporter {

struct PodGpuShare {
  // The GPU (gpu_instance_id < 0) or MIG instance, with pod, namespace_name and container.
  SeriesEntity device;
  // Sum over the pod's processes. SM and memory-controller utilization are present when
  // NVML answered nvmlDeviceGetProcessUtilization for this GPU in the pass (a process
  // without a sample then counts 0: NVML lists the processes that ran kernels); absent
  // where it cannot (MIG mode answers NOT_SUPPORTED), never guessed from the device.
  std::optional<double> sm_util_pct;
  std::optional<double> mem_util_pct;
  std::optional<double> fb_used_bytes;  // nvmlDeviceGetComputeRunningProcesses
  int processes = 0;
};

// The shares of every pod that has processes in `batch` (process entities with a pod
// name), in the order the pods' first processes appear. Processes without a pod name
// (host processes, or a pod kraken could not name) are left out.
std::vector<PodGpuShare> PodGpuShares(const SampleBatch& batch);

// Appends the kraken_pod_gpu_* families of `input.batch` to `out` (nothing when no pod
// has processes).
void RenderPodGpuShares(const ExpositionInput& input, std::string& out);

}  // namespace kraken::exporter
