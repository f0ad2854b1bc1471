// EventParser: each event is read (kineto_event_reader.cc, kineto_event_args.cc), then
// committed (kineto_event_commit.cc); this file holds what runs once after the last event.
#include "importers/kineto/kineto_event_parser.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "base/text.h"
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

// kraken's tracer with per-kernel counters on a GPU: CUPTI replays each profiled kernel
// inside its launch call and leaves the kernel's activity record without timestamps (start
// and end 0: "could not be collected", CUpti_ActivityKernel docs; all 109 of kernel_mix's
// on an H100, CUPTI 13.0), which the tracer cannot write. The launch's counter range is
// then the only record of the kernel: it becomes the kernel, named and tied as the range,
// placed at the launch call's start (the kernel ran, replayed, within the call the range
// spans), lasting what the hardware measured (gpu__time_duration.sum, ns) when the range
// has it, else 0. Both are counted, so that a report can say where these kernels came from.
// Only as many as the tracer's footer says it received without timestamps: a range whose
// kernel record was simply not written yet (a trace closed on SIGTERM) makes no kernel.
void EventParser::Impl::AddKernelsOfUntimedRanges() {
  if (launch_ranges.empty()) return;
  auto untimed_text = profile->metadata.attributes.find("kraken_cupti_records_without_timestamps");
  if (untimed_text == profile->metadata.attributes.end()) return;
  int64_t untimed = ParseInt64(untimed_text->second).value_or(0);
  std::unordered_set<int64_t> traced;
  for (const Kernel& k : profile->kernels) traced.insert(k.correlation_id);
  for (const LaunchRange& launch : launch_ranges) {
    if (untimed <= 0) break;
    if (traced.count(launch.correlation) != 0) continue;
    --untimed;
    const ProfilerRange& range = profile->profiler_ranges[launch.range];
    Kernel k;
    k.name = range.name;
    k.start_ns = range.start_ns;
    k.device = launch.device;
    k.correlation_id = launch.correlation;
    k.counters_index = range.counters_index;
    auto duration = range.raw_counters.find("gpu__time_duration.sum");
    if (duration != range.raw_counters.end() && duration->second >= 0 && duration->second < 1e15) {
      k.duration_ns = static_cast<TimeNs>(std::llround(duration->second));
    } else {
      Count("kineto_kernels_from_counter_ranges_without_duration");
    }
    Count("kineto_kernels_from_counter_ranges");
    profile->kernels.push_back(k);
  }
}

void EventParser::Impl::Finish() {
  LinkKernelsToRanges();
  AddKernelsOfUntimedRanges();
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
