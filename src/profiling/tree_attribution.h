// Attribution of one NVML sampling pass to a process tree (docs/profile.md, "Attribution"):
// which GPUs the tree uses, how busy its processes keep them, how much memory they hold,
// and whether other processes share the GPU. Pure: no I/O.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "model/sample_batch.h"

namespace kraken::profiling {

// One GPU in one pass. -1 = not reported in this pass.
struct GpuPass {
  double device_util_pct = -1;  // nvmlDeviceGetUtilizationRates.gpu: every process on the GPU
  // Sum of the tree's per-process SM utilization, capped at 100. Known (>= 0) when NVML
  // answered the process-utilization query for this GPU (a process without a sample was
  // not active in the window: 0); -1 when the query is unsupported (MIG mode, old GPUs).
  double tree_sm_util_pct = -1;
  // This pass did not ask NVML for process utilization (it is read every slow interval):
  // tree_sm_util_pct is -1, and the next pass that asks answers for the time since the
  // previous read, this pass included (SummarizeRun gives it that value).
  bool process_util_skipped = false;
  double tree_memory_bytes = 0;  // sum of the tree's processes in the running-process list
  bool tree_present = false;     // a tree process was listed or sampled on this GPU
  bool shared = false;           // a process outside the tree was listed or sampled too
  std::set<int32_t> tree_gpu_instances;  // MIG GPU instances the tree's processes ran in
  // GPM activity of the whole GPU (0..1), -1 when not sampled.
  double sm_active = -1;
  double dram_active = -1;
  double tensor_active = -1;
};

struct PassRecord {
  int64_t time_ns = 0;
  std::vector<GpuPass> gpus;  // by GPU index
};

// `process_util_answered[g]`: NVML answered the process-utilization query of GPU g in this
// pass (success, or NOT_FOUND = no process was active), so absent processes count as 0.
// `kept` receives the batch without the values and entities of processes outside the tree
// (they belong to other users: kraken stores only what it profiles).
PassRecord AttributePass(const SampleBatch& batch, const std::set<int64_t>& tree, size_t gpu_count,
                         const std::vector<bool>& process_util_answered, SampleBatch* kept);

// Process utilization is read every slow interval, and a read answers for the time since
// the previous one: a pass that skipped it (GpuPass::process_util_skipped) takes the tree
// SM utilization of the next read of its GPU; the passes after a GPU's last read, that of
// the last read. Returns `passes` itself when no pass skipped a read, else `filled`.
const std::vector<PassRecord>& FillSkippedProcessReads(const std::vector<PassRecord>& passes,
                                                       std::vector<PassRecord>& filled);

}  // namespace kraken::profiling
