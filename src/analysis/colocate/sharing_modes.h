// The three ways of sharing one GPU and what each does to the workloads on it
// (formulas in docs/colocation.md):
//  - time-slicing: contexts take turns (round-robin slices); a workload loses the GPU
//    for the co-runner's slice whenever both have work;
//  - MPS: kernels run concurrently; each client may be capped to an SM share; kernels
//    that fit their share are not slowed by it; co-running kernels split the SMs and the
//    DRAM bandwidth, and a kernel that finds the SMs full waits for a block to retire;
//  - MIG: isolated SM and memory slices; no interference, but a slice has fewer SMs, a
//    share of the bandwidth and of the memory.
#pragma once

#include <string>
#include <vector>

#include "analysis/colocate/sharing_context.h"

namespace kraken {

ModePrediction PredictTimeSlice(const std::vector<ColocationWorkload>& workloads, const SharingContext& ctx);

// `sm_shares`: per workload, 0..1 (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE / 100); 1 = no cap.
ModePrediction PredictMps(const std::vector<ColocationWorkload>& workloads, const SharingContext& ctx,
                          const std::vector<double>& sm_shares);

// MIG slice geometry of a device: compute and memory slices and the profiles (NVIDIA MIG
// user guide, "Supported MIG Profiles": fraction of SMs and of memory per profile).
struct MigProfile {
  std::string name;  // "3g"
  int compute_slices = 0;
  int memory_slices = 0;
};
struct MigGeometry {
  int compute_slices = 0;
  int memory_slices = 0;
  std::vector<MigProfile> profiles;
};
// Empty profiles when the device has no MIG (or is unknown).
MigGeometry MigGeometryFor(const DeviceSpec* device);

// One MIG layout: profile index into MigGeometryFor(device).profiles per workload.
ModePrediction PredictMigLayout(const std::vector<ColocationWorkload>& workloads, const SharingContext& ctx,
                                const std::vector<size_t>& profile_of);

// The best valid MIG layout: most workloads fitting their slice's memory, then QoS, then
// the lowest worst penalty. Infeasible (with the reason) when the device has no MIG.
ModePrediction PredictMig(const std::vector<ColocationWorkload>& workloads, const SharingContext& ctx);

}  // namespace kraken
