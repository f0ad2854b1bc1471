// The per-kernel hardware counters of KRAKEN_CUPTI_COUNTERS=1 without CUPTI: which metrics
// are collected, and how one profiled kernel becomes one trace event in the schema that
// Kineto's own CUPTI range profiler writes ("cat": "cuda_profiler_range", the kernel name,
// the metric values as numeric args), which kraken's Kineto importer reads back into
// KernelCounters. The "correlation" arg is the CUPTI correlation id of the kernel's launch,
// the same as the kernel event's: the importer ties the counters to that kernel by it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collectors/cupti/kineto_writer.h"
#include "collectors/cupti/trace_event.h"

namespace kraken::cupti {

inline constexpr std::string_view kCounterRangeCategory = "cuda_profiler_range";

// The metrics, in CUPTI/Nsight Compute names (kCounterMetricNames, counter_metric_names.h).
std::span<const char* const> CounterMetricNames();

// One profiled kernel, as the range profiler reports it.
struct CounterRange {
  std::string kernel_name;      // the launch's symbol (mangled, as the kernel record's)
  int64_t correlation_id = -1;  // CUPTI correlation id of the launch
  int64_t device = -1;
  int64_t start_ns = 0;         // the launch call on the CUPTI clock, replays included
  int64_t end_ns = 0;
  std::vector<double> values;   // one per CounterMetricNames(), same order
};

// Fills `event` from `range`, times shifted by `clock_offset_ns` (CUPTI clock to Unix
// time). The event's strings point into `range` and static names: `range` must outlive it.
void CounterRangeToEvent(const CounterRange& range, int64_t clock_offset_ns, TraceEvent* event);

// What the footer says about counters: how many kernels were profiled, passes per kernel,
// the limit, ranges CUPTI dropped, and the error that stopped collection ("" none).
struct CounterSummary {
  int64_t kernels_profiled = 0;
  int64_t passes = 0;
  int64_t max_kernels = 0;
  int64_t ranges_dropped = 0;
  int64_t ranges_unmatched = 0;  // in batches whose ranges and launches differ in number
  int64_t batches = 0;           // counter data images decoded
  int64_t launches_captured = 0;  // launches recorded into a CUDA graph (stream capture): no kernel ran
  int64_t graph_launches_unprofiled = 0;  // graph launches whose kernels ran with the profiler stopped
  bool limit_reached = false;
  std::string error;
};
JsonMembers CounterFooterMembers(const CounterSummary& summary);

}  // namespace kraken::cupti
