// Cluster pooling candidates from per-pod GPU demand: which pods' GPUs are idle and can be
// reclaimed, which pods fit in a MIG slice, which can share a GPU with others, and how
// many GPUs the cluster would free. Pure: demands in, recommendations out
// (docs/kubernetes.md, "Pooling candidates").
#pragma once

#include <string>
#include <vector>

#include "analysis/explanation.h"
#include "analysis/mig/gpu_need.h"
#include "model/device.h"
#include "model/profile.h"
#include "model/workload_demand.h"

namespace kraken::pooling {

// One pod's use of one GPU (or MIG instance), as the sampler's series describe it.
struct PodGpuUse {
  std::string namespace_name;
  std::string pod;
  std::string node;
  std::string gpu_uuid;
  std::string mig_profile;             // "" = the whole GPU
  const DeviceSpec* device = nullptr;  // catalog entry; nullptr when the model is unknown
  WorkloadDemand demand;
};

// Characterizes a pod's profile (from promql::BuildPodProfiles) and returns one use per
// GPU it sampled: the MIG-instance demands when the pod runs in slices, else the whole-GPU
// ones. `fallback_device` names the model when the series carry no modelName label. The
// profile's MIG instances get their SM count and memory from the MIG catalog (the
// exporter names only the profile, "1g.5gb").
std::vector<PodGpuUse> PodGpuUses(Profile& pod_profile, const std::string& namespace_name, const std::string& pod,
                                  const DeviceSpec* fallback_device);

enum class PoolAction { kReclaim, kMigSlice, kShare, kKeep, kUnknown };
const char* PoolActionName(PoolAction action);

struct PoolingOptions {
  double idle_busy_p95 = 0.05;       // busy p95 at or below: the GPU is idle
  double idle_memory_share = 0.05;   // ... and it holds at most this share of memory
  double dedicated_busy_p95 = 0.60;  // compute p95 above: keeps a whole GPU
  double share_compute_cap = 0.90;   // summed compute p95 of pods sharing one GPU
  double share_memory_cap = 0.90;    // summed memory peaks, share of the GPU's memory
  double memory_headroom = 0.10;     // MIG slice memory >= peak x (1 + headroom)
  // Expected slowdown a MIG slice may cost (--max-slowdown): the budget `kraken mig-plan`
  // holds every slice to; unchecked where the pod's busy time is not measured.
  double max_slowdown = 0.10;
  double smaller_gpu_max_load = 0.80;  // a smaller GPU may be loaded to this share of its peaks
};

struct PodRecommendation {
  int use = -1;  // index into the uses
  PoolAction action = PoolAction::kUnknown;
  std::string detail;  // "1g.10gb", "GPU group 2", why kept
  GpuNeed need;
  // The smallest catalog GPU (by FP32 peak) that would still carry the pod, when it is
  // smaller than the one it holds; nullptr otherwise (see SmallerGpuFor).
  const DeviceSpec* smaller_gpu = nullptr;
  Explanation explanation;
};

// Pods placed on one GPU together (share) or on one GPU's MIG slices.
struct PoolGroup {
  std::string device_id;
  PoolAction action = PoolAction::kShare;
  std::vector<int> uses;
  std::vector<std::string> mig_profiles;  // kMigSlice: the slice of each use
  double compute_p95_sum = 0;
  double memory_bytes_sum = 0;
};

// The NVIDIA catalog GPU with the smallest FP32 peak, below the current one's and with no
// more memory, whose
// FP32 peak x max_load covers compute p95 x the current FP32 peak, whose DRAM bandwidth x
// max_load covers the measured DRAM activity p95 x the current bandwidth, and whose memory
// covers the peak x (1 + headroom). Assumes compute scales with the FP32 peak (tensor
// throughput and clocks differ between generations: a first-order guide, not a promise).
const DeviceSpec* SmallerGpuFor(const PodGpuUse& use, const GpuNeed& need, const PoolingOptions& options);

struct PoolingReport {
  std::vector<PodRecommendation> pods;  // one per use, in input order
  std::vector<PoolGroup> groups;
  int gpus_now = 0;  // distinct physical GPUs the pods hold
  int gpus_reclaimed = 0;
  int gpus_after = 0;
  int gpus_saved = 0;  // gpus_now - gpus_after
  double max_slowdown = 0;  // the budget the MIG slices were held to (options.max_slowdown)
  std::vector<std::string> assumptions;
};

PoolingReport FindPoolingCandidates(const std::vector<PodGpuUse>& uses, const PoolingOptions& options = {});

}  // namespace kraken::pooling
