// The constants of the co-location model, each with its source or marked as an
// assumption (docs/colocation.md lists them with the reasoning).
#pragma once

#include <vector>

#include "model/colocation.h"
#include "model/device.h"

namespace kraken {

struct ColocationParameters {
  // Time-slice a context keeps the GPU while another waits. NVIDIA documents the
  // compute-policy choices short/medium/long as 2/10/30 ms (nvidia-smi compute-policy
  // --set-timeslice); the default's length is not published: 2 ms is an assumption.
  // NVIDIA's open kernel modules give a channel group 128 << 3 = 1024 us by default on
  // Volta and later (kfifoChannelGroupGetDefaultTimeslice_GV100); whether CUDA keeps that
  // is not documented, and the H100 pairs fit 2 ms better (docs/colocation-validation.md,
  // the H100 pairs: BERT's step grows 1.5-2.2 ms per sync beside a saturating co-runner;
  // 1 ms: 11.9 / 25.1 % error).
  double timeslice_s = 0.002;
  // Context state an instruction-level preemption saves and restores per SM (register
  // file 256 KiB + shared memory/L1 up to 128 KiB): assumption from the Volta..Hopper
  // SM sizes. A switch moves it out and in: 2 x SMs x bytes / DRAM bandwidth.
  double context_bytes_per_sm = 384.0 * 1024;
  // Switch cost when the device (SMs, bandwidth) is unknown: the V100 figure of the rule
  // above (2 x 80 x 384 KiB / 900 GB/s = 70 us).
  double fallback_switch_s = 70e-6;
  // Fraction of peak DRAM bandwidth concurrent kernels can reach together before they
  // queue on it: assumption (STREAM-like copies reach ~90 % of the datasheet peak).
  double dram_efficiency = 0.9;
  // DRAM use while running, by kernel class, when no DRAM counter was measured. Memory:
  // Orion's roofline labels a kernel memory-bound at >= 60 % DRAM throughput; compute and
  // latency-bound kernels: assumptions.
  double memory_bound_dram = 0.6;
  double compute_bound_dram = 0.2;
  double other_dram = 0.05;
  // DRAM use while running when neither DRAM activity nor kernel classes are known
  // (utilization samples only): assumption, half of the memory-bound figure.
  double unknown_dram = 0.3;
  // Host link both directions together when the device does not say: assumption (PCIe
  // Gen4 x16 is 32 GB/s per direction on paper, ~25 GB/s achieved).
  double pcie_bytes_per_s = 25e9;
  // Standard normal quantile for p99 of sums of many small independent delays.
  double p99_z = 2.326;
  // GPU busy of a workload without a timeline or utilization samples (kernel lists):
  // back-to-back work, the conservative choice.
  double unmeasured_busy = 1.0;
  // A busy profile repeats when its autocorrelation at the period reaches this.
  double periodic_min_autocorr = 0.5;
  // Two periods lock (interleave stably under round-robin) when within this ratio.
  double period_match_tolerance = 0.05;
};

// Cost of one context switch on `device` (null: the fallback).
double ContextSwitchSeconds(const ColocationParameters& params, const DeviceSpec* device);

// The parameters as name/value/unit/source rows for --explain and the JSON.
std::vector<ModelParameter> DescribeParameters(const ColocationParameters& params, const DeviceSpec* device);

}  // namespace kraken
