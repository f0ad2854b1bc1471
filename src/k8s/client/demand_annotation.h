// The demand vector as an annotation, so that the scheduler extender (which sees only the
// Pod and Node objects kube-scheduler sends) can run the co-location model:
//
//   pod:  kraken.io/demand: "v1;type=training;busy=0.620;sm=0.550;dram=0.310;pcie-gbs=1.20;mem-gib=18.2"
//   node: kraken.io/resident-demand: "v1;pod=ml/a;gpu=0;type=...;busy=...,v1;pod=ml/b;gpu=3;..."
//         (one entry per resident GPU pod and GPU, at most kMaxResidentEntries; "none" = kraken
//         looked and no analysed GPU pod with a demand vector runs there; kept true over
//         time by k8s/controller/resident_list.h)
//
// Fields (all optional but the version; ratios are wall-time means over the analysed
// window, as WorkloadDemand holds them): type (workload type), busy (gpu_busy), sm
// (sm_active), dram (dram_active), pcie-gbs (host link, GB/s both ways), mem-gib (peak
// device memory), cb/mb (compute-/memory-bound share of kernel time, when kernels were
// classified), dev (catalog id of the GPU it was measured on); residents add pod
// (namespace/name) and gpu (the GPU index on the node). These are exactly the demand
// figures BuildColocationWorkload reads from DCGM-style samples; the time profile and
// kernel shape do not fit in an annotation and stay "not measured" (the model then uses
// its documented assumptions). An entry of another version is ignored and counted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/workload_demand.h"

namespace kraken::k8s {

inline constexpr char kDemandKey[] = "kraken.io/demand";
inline constexpr char kResidentDemandKey[] = "kraken.io/resident-demand";
inline constexpr char kDemandVersion[] = "v1";
inline constexpr size_t kMaxResidentEntries = 16;

struct DemandEntry {
  WorkloadDemand demand;  // source_kind "samples"; measured flags set for the fields present
  std::string pod;        // namespace/name (residents)
  int gpu = -1;           // GPU index on the node (residents), -1 unknown
};

// "v1;type=...;busy=..." with the measured fields of `demand` (ratios 3 decimals, GB/s
// 2, GiB 1). Empty when nothing the model reads was measured, and for a MIG instance's
// demand (its ratios are of the slice; the extender does not model MIG).
std::string FormatDemandAnnotation(const WorkloadDemand& demand);
// One resident entry: a pod's demand value with pod and GPU inserted after the version.
std::string ResidentEntry(const std::string& pod, int gpu, const std::string& demand_value);
// The node value: entries joined by ',' (the first kMaxResidentEntries), "none" when empty.
std::string FormatResidentDemand(const std::vector<std::string>& entries);

// Parses one entry. nullopt with `*why` set when the version is unknown or a field is
// malformed (the whole entry is then ignored: half a demand vector would mislead).
std::optional<DemandEntry> ParseDemandEntry(std::string_view text, std::string* why);

struct ResidentDemand {
  std::vector<DemandEntry> entries;
  int ignored = 0;                  // entries of an unknown version or malformed
  std::vector<std::string> notes;   // why each was ignored
};
ResidentDemand ParseResidentDemand(std::string_view text);

}  // namespace kraken::k8s
