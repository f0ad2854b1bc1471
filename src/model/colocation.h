// Co-location predictions: what kraken expects to happen to each workload when several
// share one GPU under time-slicing, MPS or MIG, and every figure the prediction rests on
// (inputs, the parts of the formula, assumptions), so that `--explain` can show them.
// The model itself is in analysis/colocate/ and docs/colocation.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kraken {

enum class SharingMode : uint8_t { kTimeSlice, kMps, kMig };
inline const char* SharingModeName(SharingMode mode) {
  switch (mode) {
    case SharingMode::kTimeSlice: return "timeslice";
    case SharingMode::kMps: return "mps";
    case SharingMode::kMig: return "mig";
  }
  return "?";
}

// One input figure of a workload as the model uses it, with where it came from.
struct ColocationFigure {
  std::string name;   // "gpu_busy", "dram_intensity", ...
  double value = 0;
  std::string unit;   // "fraction", "ms", "bytes", ...
  std::string basis;  // measured source or the assumption that replaced it
  bool assumed = false;
};

// A workload as the co-location model sees it: the demand vector reduced to the figures
// the formulas use. Built by BuildColocationWorkload (analysis/colocate/workload_inputs.h).
struct ColocationWorkload {
  std::string name;
  std::string workload_type;  // training, inference, unknown
  std::string device_id;
  std::string work_class;     // compute, memory or mixed (from the kernel bound mix)

  double busy = 0;            // u: fraction of wall time its kernels run, alone
  std::vector<double> busy_bins;  // busy fraction per bin of bin_s (empty: no time profile)
  double bin_s = 0;
  double period_s = 0;        // repeat period of busy_bins (step time or autocorrelation), 0 none
  // Host syncs per step that waited on its GPU work (WorkloadDemand::gpu_syncs_per_step):
  // each empties its queue, and under time-slicing its next launch waits out a backlogged
  // co-runner's slice. 0 unknown (no steps).
  double gpu_syncs_per_step = 0;

  std::vector<double> fill_share;  // kernel time by SM fill (WorkloadDemand::sm_fill_time_share)
  double mean_fill = 0;            // duration-weighted SM fill while busy
  double dram_intensity = 0;       // DRAM bandwidth used while busy, fraction of peak
  double memory_bound_share = 0;   // of kernel time
  double kernels_per_busy_s = 0;   // kernel launches per second of its busy time (0 unknown)
  // Kernels that hold the block dispatcher (WorkloadDemand::sm_hold_*): share of kernel
  // time held, such kernels per second of busy time, residual hold; 0 unknown or none.
  double sm_hold_share = 0;
  double sm_hold_kernels_per_busy_s = 0;
  double sm_hold_residual_s = 0;
  double sm_hold_coresident_share = 0;  // of the held time: grids whose blocks share an SM

  // Request-driven workloads (inference): one request's time alone and its GPU part.
  bool request_driven = false;
  double request_s = 0;            // 0: no request unit known (latency is reported per kernel)
  double request_gpu_s = 0;
  double request_kernels = 0;      // kernels one request launches (0 unknown)
  std::string request_unit;        // "request (one pass)", "step", "kernel"
  double request_rate_per_s = 0;   // offered load when given (--rate); 0 = not queued

  double memory_bytes = 0;
  bool memory_measured = false;
  double pcie_bytes_per_s = 0;

  double max_slowdown = 0;         // QoS limit (--qos), 0 = none
  std::vector<ColocationFigure> figures;  // every figure above with its basis
};

// One part of a formula with its value, for --explain.
struct FormulaTerm {
  std::string name;     // "collision probability q", "SM factor in collision", ...
  double value = 0;
  std::string formula;  // how it was computed, with the numbers
};

struct WorkloadPrediction {
  std::string name;
  // Throughput slowdown: time of a unit of its work co-located / alone (>= 1).
  double slowdown = 1;
  // Latency of request-driven workloads, p99, alone and co-located (ms); 0 when not predicted.
  bool latency_predicted = false;
  std::string latency_unit;        // what one latency sample is: request, step or kernel
  double p99_alone_ms = 0;
  double p99_colocated_ms = 0;
  double p99_increase = 1;         // ratio co-located / alone (infinite when overloaded)
  bool overloaded = false;         // offered load exceeds what the co-located GPU serves
  // The figure QoS and the score use: p99_increase for a request-driven workload with a
  // latency prediction, else slowdown.
  double penalty = 1;
  std::string contended_resource;  // "GPU time", "SMs", "DRAM bandwidth", "SM queue", "memory capacity", "none"
  double qos_max_slowdown = 0;     // 0 = no constraint
  bool qos_ok = true;
  bool fits_memory = true;
  std::vector<FormulaTerm> terms;
};

// The prediction for one way of sharing (one mode with its SM shares or MIG profiles).
// The model's measured error for a mode (analysis/colocate/model_validation.cc).
struct ModeValidation {
  bool validated = false;
  std::string device;           // the GPU the ground truth was measured on
  int pairs = 0;
  int workloads = 0;            // slowdowns compared (two per pair)
  double mean_abs_error_pct = 0;  // mean of |predicted / measured - 1| x 100
  double max_abs_error_pct = 0;
  std::string reference;        // where the comparison is (or why there is none)
};

struct ModePrediction {
  SharingMode mode = SharingMode::kTimeSlice;
  bool feasible = true;
  std::string infeasible_reason;
  std::vector<double> sm_shares;        // MPS: per workload (1 = no limit); MIG: SM fraction of the slice
  std::vector<double> memory_shares;    // MIG: memory fraction of the slice
  std::vector<std::string> mig_profiles;  // MIG: "3g", "4g" ...
  bool split_suggested = false;         // MPS shares chosen by the search (not given)
  std::vector<WorkloadPrediction> workloads;
  double score = 0;                     // pairs only: 0..1, see PairScore
  bool all_qos_ok = true;
  std::vector<std::string> notes;
  ModeValidation validation;
};

// How well two workloads share a GPU, 0..1: the extra work the pair gets done over
// running one at a time, 1/slowdown_a + 1/slowdown_b - 1 (clamped), under the best mode
// (the best-scoring mode that meets every QoS limit, else the best-scoring one).
struct PairScore {
  size_t a = 0;
  size_t b = 0;
  double score = 0;
  SharingMode best_mode = SharingMode::kTimeSlice;
  std::vector<double> sm_split;  // suggested MPS split (a, b) when MPS was considered
  std::string model;             // "measured" or "class-table"
  std::string class_a, class_b;  // class-table inputs
  std::string explanation;       // one line: which mode, the two penalties
};

struct ModelParameter {
  std::string name;
  double value = 0;
  std::string unit;
  std::string source;  // citation or "assumption: ..."
};

struct ColocationReport {
  std::string model;  // "measured" or "class-table"
  std::vector<ColocationWorkload> workloads;
  std::vector<ModePrediction> modes;
  std::vector<PairScore> pairs;
  std::vector<ModelParameter> parameters;
  std::vector<std::string> assumptions;
};

// Placement of N workloads on M GPUs (kraken colocate --optimize).
struct GpuAssignment {
  int gpu = 0;
  std::vector<size_t> workloads;      // indices into the input list
  ModePrediction prediction;          // how they share it (empty workloads: idle GPU)
  std::string reason;
};

struct PlacementResult {
  bool feasible = false;
  std::string method;                 // "exact (subset DP over 2^N)" or "greedy ..."
  std::vector<GpuAssignment> gpus;    // GPUs used, in order
  int gpus_available = 0;
  double total_interference = 0;      // sum over workloads of (penalty - 1)
  std::vector<std::string> reasons;   // why: rejected groups, binding constraints
};

}  // namespace kraken
