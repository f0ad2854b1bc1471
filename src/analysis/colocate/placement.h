// kraken colocate --optimize: which workloads share which GPU. Every group of workloads
// on one GPU is predicted with the co-location model and accepted only when each member
// meets its QoS limit and the global interference limit and the group fits the GPU's
// memory; among the placements that satisfy all constraints, the one with the fewest
// GPUs wins, then the lowest total interference (sum of penalty - 1).
#pragma once

#include <vector>

#include "analysis/colocate/colocate.h"
#include "model/colocation.h"

namespace kraken {

struct PlacementOptions {
  ColocateOptions colocate;    // modes allowed, parameters, device
  int gpus = 1;                // GPUs available
  double gpu_memory_bytes = 0; // per GPU; 0 = the device's
  double max_slowdown = 0;     // no workload's penalty above this (0 = no limit)
  size_t max_per_gpu = 4;      // the model is first-order: keep groups small
  size_t exact_limit = 12;     // exact search up to this many workloads, greedy beyond
};

PlacementResult OptimizePlacement(const std::vector<ColocationWorkload>& workloads, const PlacementOptions& options);

}  // namespace kraken
