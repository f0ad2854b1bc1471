// EventParser: each event is read (kineto_event_reader.cc, kineto_event_args.cc), then
// committed (kineto_event_commit.cc); this file holds what runs once after the last event.
#include "importers/kineto/kineto_event_parser.h"

#include <algorithm>

#include "importers/kineto/kineto_event_parser_impl.h"

namespace kraken::kineto {

// Kernels whose launch has a profiler range (same correlation id) point at its counters.
void EventParser::Impl::LinkKernelsToRanges() {
  if (range_counters_by_correlation.empty()) return;
  for (Kernel& k : profile->kernels) {
    auto it = range_counters_by_correlation.find(k.correlation_id);
    if (k.counters_index < 0 && it != range_counters_by_correlation.end()) k.counters_index = it->second;
  }
}

void EventParser::Impl::Finish() {
  LinkKernelsToRanges();
  auto by_start = [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; };
  std::stable_sort(profile->kernels.begin(), profile->kernels.end(), by_start);
  std::stable_sort(profile->memory_ops.begin(), profile->memory_ops.end(), by_start);
  std::stable_sort(profile->cpu_ops.begin(), profile->cpu_ops.end(), by_start);
  std::stable_sort(profile->runtime_calls.begin(), profile->runtime_calls.end(), by_start);
  std::stable_sort(profile->steps.begin(), profile->steps.end(), by_start);
  std::stable_sort(profile->syncs.begin(), profile->syncs.end(), by_start);
  for (auto& series : profile->series)
    std::stable_sort(series.samples.begin(), series.samples.end(),
                     [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; });
  auto& out = profile->import_counters;
  for (const auto& [name, value] : counters) out[name] += value;
  auto put = [&](const char* name, int64_t value) {
    if (value > 0) out[name] += value;
  };
  put("kineto_malformed_events", malformed);
  put("kineto_python_functions_skipped", python_functions);
  put("kineto_flow_events", flows);
  put("kineto_metadata_events", metadata_events);
  put("kineto_events_missing_timestamp", missing_timestamp);
  put("kineto_negative_durations_clamped", negative_duration);
}

EventParser::EventParser(Profile* profile) : impl_(std::make_unique<Impl>(profile)) {}
EventParser::~EventParser() = default;
void EventParser::Parse(std::string_view event) { impl_->Parse(event); }
void EventParser::Finish() { impl_->Finish(); }

}  // namespace kraken::kineto
