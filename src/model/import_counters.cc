#include "model/import_counters.h"

namespace kraken {
namespace {

constexpr bool kName = false;
constexpr bool kFamily = true;

constexpr ImportCounterInfo kCounters[] = {
    // Any format read from an archive.
    {"archive_members_skipped", kName, "archive members that no importer recognised (set on every profile read from the archive)"},
    // Kineto / PyTorch profiler JSON.
    {"kineto_events", kName, "entries of traceEvents read"},
    {"kineto_metadata_events", kName, "metadata events (ph M: process/thread names and sort indices)"},
    {"kineto_flow_events", kName, "flow events (ph s/f: launch-to-kernel arrows); correlation ids link them instead"},
    {"kineto_python_functions_skipped", kName, "python_function events, left out on purpose (call-stack detail kraken does not analyse)"},
    {"kineto_malformed_events", kName, "events that are not JSON objects or lack a usable field"},
    {"kineto_events_missing_timestamp", kName, "complete events without ts"},
    {"kineto_negative_durations_clamped", kName, "events with a negative dur, read as zero"},
    {"kineto_events_sanitized", kName, "events with invalid UTF-8 or control bytes in a string, repaired before use"},
    {"kineto_counter_events_ignored", kName, "counter events (ph C) of no series kraken reads"},
    {"kineto_cuda_memory_bad_values", kName,
     "CUDA device memory counter events (kraken's CUPTI tracer) without a device or a byte count of at least 0, skipped"},
    {"kineto_unsupported_phase_events", kName, "events of a phase kraken does not read (async, object, sample ...)"},
    {"kineto_instant_events_ignored", kName, "instant events (ph i) other than [memory] records"},
    {"kineto_memory_events_without_totals", kName, "[memory] instant events without Total Allocated/Reserved"},
    {"kineto_ignored_category:", kFamily, "complete events of this cat, which no analysis uses (<none>: no cat)"},
    {"kineto_trace_cut", kName, "1 when the file ends inside traceEvents (a trace cut short); what came before is kept"},
    {"kineto_cut_partial_event_bytes", kName, "bytes of the half-written event at the cut, dropped"},
    {"kineto_kernels_from_counter_ranges", kName,
     "kernels read from kraken's tracer's per-kernel counter ranges: CUPTI gave their records no timestamps "
     "(kernel replay); placed at the launch call's start"},
    {"kineto_kernels_from_counter_ranges_without_duration", kName,
     "of those, ranges without gpu__time_duration.sum: the kernel's duration is unknown (0)"},
    // Nsight Compute CSV and kernel label lists.
    {"ncu_kernels", kName, "kernels (distinct ids) read"},
    {"ncu_prologue_lines", kName, "lines before the CSV header (ncu's ==PROF== log), skipped"},
    {"ncu_rows_without_kernel_id", kName, "rows whose ID column is not an integer"},
    {"ncu_short_rows", kName, "rows with fewer fields than the header"},
    {"ncu_rule_rows", kName, "rule rows (advice such as SOLBottleneck) without a metric"},
    {"ncu_empty_values", kName, "metrics with an empty value"},
    {"ncu_non_numeric_values", kName, "metrics whose value is not a number, kept as text"},
    {"ncu_tensor_flops_uncounted", kName,
     "kernels whose tensor pipe did matrix-multiply work that no tensor-path op counter counted (ncu answered "
     "\"n/a\" or left the path out): their FLOP counts are left empty, so they are classified from throughputs, "
     "never with an intensity of 0"},
    {"ncu_unknown_units", kName, "metrics in a unit kraken cannot convert, left unscaled"},
    {"ncu_kernels_without_duration", kName, "kernels with neither gpu__time_duration nor cycles and clock"},
    {"ncu_durations_from_cycles", kName, "kernel durations computed from elapsed cycles / clock"},
    {"labels_malformed_rows", kName, "rows of a kernel label list that could not be read"},
    // Prometheus text exposition and dcgm-exporter.
    {"prometheus_samples", kName, "samples stored"},
    {"prometheus_unparsable_lines", kName, "lines that are not valid exposition format"},
    {"prometheus_non_finite_values", kName, "samples whose value is NaN or infinite"},
    {"prometheus_dcgm_blank_values", kName, "DCGM blank sentinels (no value, not supported, no permission)"},
    {"prometheus_timestamps_out_of_range", kName, "samples whose timestamp does not fit nanoseconds since 1970"},
    {"prometheus_series_without_values", kName, "series all of whose samples were dropped"},
    {"dcgm_counters_enabled", kName, "fields a dcgm-exporter counters CSV enables"},
    {"dcgm_counters_commented_out", kName, "fields present but commented out"},
    {"dcgm_counters_bad_rows", kName, "rows that are not field, type, help"},
    {"dcgm_counters_duplicate_fields", kName, "fields listed more than once (the first is kept)"},
    {"dcgm_counters_unknown_fields", kName, "fields missing from kraken's DCGM metric catalog"},
    {"dcgm_counters_help_with_commas", kName, "rows whose help text contains commas (joined back)"},
    // nvidia-smi output (query CSV, dmon, pmon, -q, -L, captures).
    {"nvidia_smi_sections_read", kName, "sections of a capture that held usable output"},
    {"nvidia_smi_sections_skipped", kName, "sections of other output"},
    {"nvidia_smi_empty_sections", kName, "sections with nothing in them"},
    {"nvidia_smi_bad_rows", kName, "rows with the wrong number of fields"},
    {"nvidia_smi_bad_timestamps", kName, "rows whose timestamp could not be read"},
    {"nvidia_smi_rows_without_header", kName, "rows before any header line"},
    {"nvidia_smi_unknown_units", kName, "values in a unit kraken cannot convert"},
    {"nvidia_smi_unparsable_values", kName, "values that are neither numbers nor N/A-like words"},
    {"nvidia_smi_samples_anchored", kName,
     "samples of clockless sections (dmon, pmon) placed after the last timestamped sample of their capture phase"},
    // Cluster traces.
    {"helios_rows", kName, "Helios rows read"},
    {"helios_bad_rows", kName, "Helios rows with the wrong number of fields"},
    {"helios_unparsable_values", kName, "Helios values that are not numbers"},
    {"helios_out_of_order_rows", kName, "Helios rows earlier than the one before (series sorted)"},
    {"helios_duplicate_timestamps", kName, "Helios rows repeating a timestamp (the last is kept)"},
    {"genai_rows", kName, "Alibaba GenAI pod rows read"},
    {"genai_bad_rows", kName, "Alibaba GenAI pod rows that could not be read"},
    {"genai_out_of_order_rows", kName, "Alibaba GenAI rows earlier than the one before (series sorted)"},
    {"genai_duplicate_timestamps", kName, "Alibaba GenAI rows repeating a timestamp (the last is kept)"},
    {"pai_minibatch_rows", kName, "PAI minibatch rows read"},
    {"pai_minibatch_bad_rows", kName, "PAI minibatch rows that could not be read"},
    {"pai_minibatch_unparsable_values", kName, "PAI minibatch values that are not numbers"},
    {"pai_minibatch_out_of_order_rows", kName, "PAI minibatch rows earlier than the one before (series sorted)"},
    {"pai_minibatch_duplicate_timestamps", kName, "PAI minibatch rows repeating a timestamp (the last is kept)"},
    {"orion_rows", kName, "Orion kernel rows read"},
    {"orion_bad_rows", kName, "Orion rows that could not be read"},
    // kraken's own JSON export.
    {"kraken_json_unreadable_", kFamily, "records of this section (or the section itself) that could not be read"},
    {"kraken_json_skipped_", kFamily, "top-level keys this version does not know (a later writer's), skipped"},
    {"kraken_json_dangling_counters_index", kName, "counters_index values that point at no readable record"},
    {"kraken_json_dangling_collective_index", kName, "collective_index values that point at no readable record"},
};

}  // namespace

std::span<const ImportCounterInfo> ImportCounterCatalog() { return kCounters; }

const ImportCounterInfo* FindImportCounter(std::string_view name) {
  for (const ImportCounterInfo& info : kCounters)
    if (!info.family && info.name == name) return &info;
  for (const ImportCounterInfo& info : kCounters)
    if (info.family && name.size() > info.name.size() && name.starts_with(info.name)) return &info;
  return nullptr;
}

std::string ImportCounterMarkdown() {
  std::string out = "| counter | counts |\n|---|---|\n";
  for (const ImportCounterInfo& info : kCounters) {
    out += "| `";
    out += info.name;
    out += info.family ? "<...>` | " : "` | ";
    out += info.description;
    out += " |\n";
  }
  return out;
}

}  // namespace kraken
