#include "collectors/cupti/counter_events.h"

#include <algorithm>
#include <iterator>

#include "collectors/cupti/counter_metric_names.h"

namespace kraken::cupti {

// The metrics, the correlation and the device must fit one event's arguments.
static_assert(std::size(kCounterMetricNames) + 2 <= TraceEvent::kMaxArgs);

std::span<const char* const> CounterMetricNames() { return kCounterMetricNames; }

void CounterRangeToEvent(const CounterRange& range, int64_t clock_offset_ns, TraceEvent* event) {
  event->Clear();
  event->phase = 'X';
  event->category = kCounterRangeCategory;
  event->name = range.kernel_name.empty() ? std::string_view("__missing__") : std::string_view(range.kernel_name);
  // Kineto puts its ranges on pid 0; the device keeps them beside that GPU's kernels.
  event->pid = range.device < 0 ? 0 : range.device;
  event->tid = 0;
  event->start_ns = range.start_ns + clock_offset_ns;
  event->duration_ns = range.end_ns > range.start_ns ? range.end_ns - range.start_ns : 0;
  event->AddInt("correlation", range.correlation_id);
  event->AddInt("device", range.device);
  const size_t count = std::min(range.values.size(), std::size(kCounterMetricNames));
  for (size_t i = 0; i < count; ++i) event->AddDouble(kCounterMetricNames[i], range.values[i]);
}

JsonMembers CounterFooterMembers(const CounterSummary& summary) {
  JsonMembers members = {{"kraken_cupti_counter_kernels", JsonInt(summary.kernels_profiled)},
                         {"kraken_cupti_counter_passes", JsonInt(summary.passes)},
                         {"kraken_cupti_counter_max_kernels", JsonInt(summary.max_kernels)},
                         {"kraken_cupti_counter_limit_reached", summary.limit_reached ? "true" : "false"},
                         {"kraken_cupti_counter_ranges_dropped", JsonInt(summary.ranges_dropped)},
                         {"kraken_cupti_counter_ranges_unmatched", JsonInt(summary.ranges_unmatched)},
                         {"kraken_cupti_counter_batches", JsonInt(summary.batches)},
                         {"kraken_cupti_counter_launches_captured", JsonInt(summary.launches_captured)},
                         {"kraken_cupti_counter_graph_launches_unprofiled",
                          JsonInt(summary.graph_launches_unprofiled)}};
  if (!summary.error.empty()) members.emplace_back("kraken_cupti_counters_error", JsonString(summary.error));
  return members;
}

}  // namespace kraken::cupti
