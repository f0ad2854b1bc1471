// A real-world reference for disaggregated GPU serving: the resource ratios that the
// GPU-disaggregated DLRM deployment of Alibaba's cluster-trace-gpu-v2025 (NSDI'25,
// "Prism") actually requested. Each GPU-node (HN) instance holds one GPU and is fed by
// CPU-node (CN) instances over RDMA; the ratios say how much host CPU, host memory and
// RDMA bandwidth a disaggregated GPU was given, and how many CPU-side instances fed it.
// `kraken disagg --reference FILE` prints them next to a workload's own figures.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace kraken::disagg {

struct RatioStats {
  int64_t count = 0;
  double mean = 0;
  double p10 = 0;
  double p50 = 0;
  double p90 = 0;
};

struct FleetReference {
  int64_t instances = 0;
  int64_t gpu_node_instances = 0;  // role HN
  int64_t cpu_node_instances = 0;  // role CN
  int64_t apps = 0;
  RatioStats vcpu_per_gpu;            // HN cpu_request / gpu_request
  RatioStats host_memory_gib_per_gpu; // HN memory_request / gpu_request
  RatioStats rdma_pct_per_gpu;        // HN rdma_request / gpu_request, % of one RNIC
  RatioStats cpu_instances_per_gpu_instance;  // per app with both roles: CN / HN instances
  RatioStats cpu_node_vcpu;           // CN cpu_request
  int64_t skipped_rows = 0;           // rows with a missing or unparsable request
};

// The trace's CSV text (header instance_sn,role,app_name,cpu_request,...).
Result<FleetReference> SummarizeDisaggregatedFleet(std::string_view csv_text);

}  // namespace kraken::disagg
