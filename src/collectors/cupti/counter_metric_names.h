// The per-kernel counter metrics of KRAKEN_CUPTI_COUNTERS=1, in CUPTI/Nsight Compute
// names, in the order the tracer asks the range profiler for them and writes them out.
// A header of its own, with no dependency, so that the test-only fake libcupti
// (fake_profiler_host.cc, a separate shared library) answers for exactly these metrics.
#pragma once

namespace kraken::cupti {

// SASS floating-point instruction counts (the FLOPs of the roofline: add + mul + 2 * fma
// per precision), DRAM bytes read and written, the speed-of-light throughputs in % of
// peak, and the kernel's duration as the GPU measured it (ns): under kernel replay CUPTI's
// kernel records carry no timestamps, so this is the kernel's only duration.
inline constexpr const char* kCounterMetricNames[] = {
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "gpu__time_duration.sum",
};

}  // namespace kraken::cupti
