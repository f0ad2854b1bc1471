// What a workload asks of a GPU, as numbers the pooling analyses (co-location,
// disaggregation, MIG planning) compare: how busy it keeps the SMs, tensor cores, DRAM
// and PCIe, how much device memory it holds, and how its demand moves over time.
// Derived from a trace, from sampled metrics, or from a kernel list (see
// analysis/demand.h); fields a source cannot supply stay "not measured".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kraken {

// Bins of WorkloadDemand::sm_fill_time_share below a full grid (plus one for full grids).
inline constexpr int kSmFillBins = 20;

// One demand figure over the workload's run. Ratios are 0..1; rates in their unit.
struct DemandStat {
  bool measured = false;
  double mean = 0;
  double p95 = 0;
  double max = 0;
  // How the figure was obtained, for --explain ("DCGM_FI_PROF_SM_ACTIVE samples",
  // "kernel time share", ...).
  std::string basis;
};

struct WorkloadDemand {
  std::string name;         // label: file name, rank, pod
  std::string source_kind;  // "trace", "samples" or "kernels"
  std::string workload_type;  // training, inference, unknown
  std::string device_id;    // catalog id of the GPU it ran on, "" unknown
  int32_t device_sm_count = 0;
  double device_memory_bytes = 0;
  // The MIG instance a sampler's series describe (0 = the whole GPU): its SMs (all of its
  // compute instances) and memory. Ratios measured inside an instance are ratios of the
  // instance, so analyses that compare with whole GPUs scale them by these.
  int32_t mig_instance_sm_count = 0;
  double mig_instance_memory_bytes = 0;
  // Which sampled entity the demand describes (GPU index, MIG GPU instance, phase label),
  // so analyses can find its other series; -1 / "" for traces and kernel lists.
  int32_t gpu_index = -1;
  int32_t gpu_instance_id = -1;
  std::string phase;

  DemandStat gpu_busy;        // fraction of wall time a kernel runs (timeline busy, or utilization.gpu)
  DemandStat sm_active;       // fraction of SM cycles with a resident warp (DCGM/GPM, or estimated)
  DemandStat sm_occupancy;    // resident warps / max warps
  DemandStat tensor_active;   // tensor-pipe activity
  DemandStat dram_active;     // DRAM interface activity (fraction of peak bandwidth)
  DemandStat pcie_bytes_per_s;    // host <-> device, both directions
  DemandStat nvlink_bytes_per_s;
  DemandStat memory_bytes;        // device memory held (allocator reserved or framebuffer used)

  // Shares of kernel time by class (sum to <= 1; the rest unclassified).
  double compute_bound_share = 0;
  double memory_bound_share = 0;
  double latency_bound_share = 0;
  double communication_share = 0;  // of the busy time: collectives

  // Kernel shape, for interference at kernel granularity.
  double kernel_p50_ns = 0;
  double kernel_p99_ns = 0;
  double kernels_per_s = 0;
  // Fraction of the device's SMs a typical kernel's grid can fill (grid blocks / SMs,
  // capped at 1, duration-weighted); 0 when unknown.
  double sm_fill = 0;
  // Added for the co-location model (analysis/colocate), from the kernel list:
  // kernel count and summed kernel time (for a kernel list without timestamps this is one
  // pass: an inference request or a training iteration);
  int64_t kernel_count = 0;
  double kernel_time_s = 0;
  // the share of kernel time by SM fill, kSmFillBins bins of width 1/kSmFillBins over
  // [0, 1) plus a last bin for grids of at least one block per SM (the fill
  // distribution, not only its mean, decides which kernels an MPS SM share slows down);
  std::vector<double> sm_fill_time_share;
  // the duration-weighted mean of (kernel duration / waves), waves = max(1, blocks/SMs):
  // how long a kernel running at a random instant holds an SM before one of its blocks
  // retires. A co-runner's kernel that finds the SMs full waits about half of it.
  double sm_turnover_ns = 0;
  // Kernels that hold the block dispatcher: grids of at least one block per SM. The
  // dispatcher places grids in launch order, so a co-runner's grid launched meanwhile gets
  // SMs only when such a grid's last blocks are placed (a one-wave GEMM that takes every
  // SM's registers: its whole duration; a many-wave elementwise grid: nearly all of it).
  // Their count, their share of kernel time and their residual duration
  // sum(d^2) / (2 sum(d)): how long a kernel arriving during one waits on average.
  int64_t sm_hold_kernel_count = 0;
  double sm_hold_time_share = 0;
  double sm_hold_residual_ns = 0;
  // Share of that time in grids whose blocks fit at least two to an SM (registers, shared
  // memory, threads): the next such grid fills the room a co-runner's kernel leaves on the
  // SMs and runs beside it. A GEMM whose block takes every register never does.
  double sm_hold_coresident_share = 0;

  // Time profile of demand: the GPU-busy fraction in consecutive bins of bin_s seconds.
  // Two workloads whose busy bins interleave share a GPU well.
  double bin_s = 0;
  std::vector<double> busy_bins;
  // Time of the first bin's value on the profile's clock (bin centre for a trace, first
  // sample for a sampler); bin i is at bins_start_ns + i x bin_s. Lets analyses line other
  // series (memory footprint) up with the busy bins.
  int64_t bins_start_ns = 0;
  double duration_s = 0;  // span covered
  std::optional<double> step_time_s;  // iteration time when the trace has steps
  // Host syncs per step (mean over the profiler steps) that waited on GPU work launched
  // since the previous sync: each leaves the workload with nothing queued, so under
  // time-slicing a co-runner with work takes the GPU until its slice ends. 0: no steps.
  double gpu_syncs_per_step = 0;
};

}  // namespace kraken
