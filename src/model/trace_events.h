// Events recorded on a timeline by a tracer (PyTorch profiler/Kineto, Nsight Systems).
// Plain data: importers fill these, analyses read them. Times are integer nanoseconds
// on the trace's own clock (see Profile::base_time_ns for its absolute origin).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "base/string_table.h"

namespace kraken {

using TimeNs = int64_t;

// Grid or block dimensions of a launch; 0 means "not recorded".
using Dim3 = std::array<int32_t, 3>;

// Hardware counters of one kernel, when a profiler measured them (Nsight Compute, CUPTI
// range profiling). Every field is optional: a counter that was not collected is absent.
struct KernelCounters {
  // Floating-point operations executed, by precision (CUDA cores: fadd + fmul + 2*ffma).
  std::optional<double> fp64_flops;
  std::optional<double> fp32_flops;
  std::optional<double> fp16_flops;
  // Tensor-core operations, when ncu reported op counts (sm__ops_path_tensor_*).
  std::optional<double> tensor_flops;
  std::optional<double> dram_bytes;
  std::optional<double> l2_bytes;
  std::optional<double> l1_bytes;
  // Speed-of-light throughputs in % of the device's peak, as ncu computes them.
  std::optional<double> sm_throughput_pct;
  std::optional<double> dram_throughput_pct;
  std::optional<double> memory_throughput_pct;
  std::optional<double> tensor_pipe_active_pct;
  std::optional<double> achieved_occupancy_pct;
  // Clocks during the measurement (ncu locks them to base by default).
  std::optional<double> sm_clock_hz;
  std::optional<double> dram_clock_hz;
  // Peaks measured by the profiler on this device and clock, used for the roofline
  // in preference to datasheet numbers.
  std::optional<double> peak_fp32_flops_per_s;
  std::optional<double> peak_fp64_flops_per_s;
  std::optional<double> peak_dram_bytes_per_s;
  // Measured tensor-core peak (FLOP/s) for the precision the kernel's tensor work used,
  // when the profiler reported one; the classifier otherwise falls back to the catalog's
  // dense 16-bit tensor peak.
  std::optional<double> peak_tensor_flops_per_s;
};

// One execution of a GPU kernel.
struct Kernel {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  int32_t device = -1;
  int64_t stream = -1;
  int64_t correlation_id = -1;  // links to the RuntimeCall that launched it; -1 unknown
  int64_t external_id = -1;     // links to the CPU operator; -1 unknown
  Dim3 grid{0, 0, 0};
  Dim3 block{0, 0, 0};
  int32_t registers_per_thread = -1;
  int64_t shared_memory_bytes = -1;
  // Kineto's launch estimates: grid blocks / SM count, and its occupancy estimate.
  double blocks_per_sm = -1;
  double warps_per_sm = -1;
  double est_achieved_occupancy_pct = -1;
  // Index into Profile::kernel_counters, or -1.
  int32_t counters_index = -1;
  // Index into Profile::collectives for NCCL/RCCL kernels, or -1.
  int32_t collective_index = -1;

  TimeNs end_ns() const { return start_ns + duration_ns; }
};

enum class MemoryOpKind : uint8_t { kMemcpy, kMemset };

enum class CopyDirection : uint8_t {
  kUnknown,
  kHostToDevice,
  kDeviceToHost,
  kDeviceToDevice,
  kHostToHost,
  kPeerToPeer,
};

// A memcpy or memset executed by the GPU's copy or compute engines.
struct MemoryOp {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  int32_t device = -1;
  int64_t stream = -1;
  int64_t correlation_id = -1;
  int64_t bytes = -1;
  MemoryOpKind kind = MemoryOpKind::kMemcpy;
  CopyDirection direction = CopyDirection::kUnknown;
  bool pageable_host_memory = false;  // "(Pageable -> Device)": the copy was staged

  TimeNs end_ns() const { return start_ns + duration_ns; }
};

enum class CpuOpCategory : uint8_t {
  kOperator,           // aten:: and other framework operators (cat cpu_op / Operator)
  kUserAnnotation,     // record_function scopes, incl. ProfilerStep#N
  kGpuUserAnnotation,  // the same scopes projected on a GPU stream
  kPythonFunction,     // with_stack Python frames
};

// A span on a CPU thread: an operator or an annotation.
struct CpuOp {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  int64_t pid = -1;
  int64_t tid = -1;  // for kGpuUserAnnotation: the stream
  int64_t external_id = -1;
  CpuOpCategory category = CpuOpCategory::kOperator;

  TimeNs end_ns() const { return start_ns + duration_ns; }
};

// A call into the CUDA/HIP runtime or driver API (cudaLaunchKernel, cudaMemcpyAsync, ...).
struct RuntimeCall {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  int64_t pid = -1;
  int64_t tid = -1;
  int64_t correlation_id = -1;
  int64_t external_id = -1;
  bool is_driver_api = false;

  TimeNs end_ns() const { return start_ns + duration_ns; }
};

// One iteration marked by the profiler (ProfilerStep#N), on the CPU timeline.
struct StepAnnotation {
  int64_t step_number = -1;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  int64_t tid = -1;

  TimeNs end_ns() const { return start_ns + duration_ns; }
};

// What an NCCL/RCCL kernel communicated, from the profiler's collective args.
struct CollectiveInfo {
  std::string collective_name;  // allreduce, allgather, send, ...
  int64_t in_msg_nelems = -1;
  int64_t out_msg_nelems = -1;
  int64_t group_size = -1;
  std::string dtype;
  std::string process_group_name;
  std::string process_group_description;
  std::string process_group_ranks;
};

// A CPU→GPU synchronisation the host waited on (cudaStreamSynchronize, event sync...).
struct SyncEvent {
  StringId name = StringTable::kEmpty;
  TimeNs start_ns = 0;
  TimeNs duration_ns = 0;
  int32_t device = -1;
  int64_t stream = -1;  // -1 for context/event-wide syncs
};

}  // namespace kraken
