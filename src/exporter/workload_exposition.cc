#include "exporter/workload_exposition.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <optional>

namespace kraken::exporter {
namespace {

void AppendNumber(double value, std::string& out) {
  if (!std::isfinite(value)) {
    out += std::isnan(value) ? "NaN" : (value > 0 ? "+Inf" : "-Inf");
    return;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

// Label values of the info families are kraken's own words (no quotes or backslashes),
// but escape anyway: the format requires it.
void AppendExtraLabel(std::string_view name, std::string_view value, std::string& labels) {
  labels += labels.empty() ? "{" : ",";
  labels.append(name).append("=\"");
  for (char c : value) {
    if (c == '\n') {
      labels += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') labels += '\\';
    labels += c;
  }
  labels += '"';
}

// `entity_labels` ("{...}" or "") with extra labels appended inside the braces.
std::string WithExtra(const std::string& entity_labels,
                      const std::vector<std::pair<std::string_view, std::string_view>>& extra) {
  std::string labels = entity_labels;
  if (!labels.empty()) labels.pop_back();  // the closing brace
  for (const auto& [name, value] : extra) AppendExtraLabel(name, value, labels);
  if (!labels.empty()) labels += '}';
  return labels;
}

struct Family {
  std::string_view name;
  std::string_view help;
  std::function<std::optional<double>(const GpuWindowAnalysis&)> value;
};

}  // namespace

void RenderWorkloadWindow(const std::vector<GpuWindowAnalysis>& analyses, const ExpositionInput& input,
                          std::string& out) {
  if (analyses.empty()) return;
  std::vector<std::string> labels;
  labels.reserve(analyses.size());
  for (const GpuWindowAnalysis& a : analyses) labels.push_back(EntityLabels(a.entity, input));

  const Family gauges[] = {
      {"kraken_gpu_util_p95",
       "95th percentile of GPU busy (utilization.gpu, else GR engine active) over the analysis window, ratio 0..1.",
       [](const GpuWindowAnalysis& a) { return a.gpu_util_p95; }},
      {"kraken_gpu_idle_ratio",
       "Share of the analysis window's passes with GPU busy at or below the pooling idle threshold (5 %).",
       [](const GpuWindowAnalysis& a) { return a.idle_ratio; }},
      {"kraken_memory_peak_bytes", "Largest framebuffer memory used over the analysis window (in B).",
       [](const GpuWindowAnalysis& a) { return a.memory_peak_bytes; }},
      {"kraken_analysis_window_seconds", "Time from the first to the last pass the analysis read (in s).",
       [](const GpuWindowAnalysis& a) { return std::optional<double>(a.window_s); }},
      {"kraken_analysis_passes", "Sampling passes the analysis read.",
       [](const GpuWindowAnalysis& a) { return std::optional<double>(static_cast<double>(a.passes)); }},
  };
  for (const Family& family : gauges) {
    bool header = false;
    for (size_t i = 0; i < analyses.size(); ++i) {
      std::optional<double> value = family.value(analyses[i]);
      if (!value) continue;
      if (!header) {
        out.append("# HELP ").append(family.name).append(" ").append(family.help).append("\n");
        out.append("# TYPE ").append(family.name).append(" gauge\n");
        header = true;
      }
      out.append(family.name).append(labels[i]).append(" ");
      AppendNumber(*value, out);
      out += '\n';
    }
  }

  out.append("# HELP kraken_workload_info What the pooling analysis of the window says about the GPU: workload type "
             "and pooling action (keep, share, mig-slice, reclaim, unknown).\n"
             "# TYPE kraken_workload_info gauge\n");
  for (size_t i = 0; i < analyses.size(); ++i) {
    const GpuWindowAnalysis& a = analyses[i];
    std::vector<std::pair<std::string_view, std::string_view>> extra = {{"workload_type", a.workload_type}};
    if (!a.pooling_action.empty()) extra.emplace_back("pooling_action", a.pooling_action);
    out.append("kraken_workload_info").append(WithExtra(labels[i], extra)).append(" 1\n");
  }

  bool bound_header = false;
  for (size_t i = 0; i < analyses.size(); ++i) {
    if (analyses[i].bound.empty()) continue;
    if (!bound_header) {
      out.append("# HELP kraken_gpu_bound_info What bounds the GPU's work over the window, from GPM/DCGM SM, tensor "
                 "and DRAM activity medians (memory, compute, neither).\n"
                 "# TYPE kraken_gpu_bound_info gauge\n");
      bound_header = true;
    }
    out.append("kraken_gpu_bound_info").append(WithExtra(labels[i], {{"bound", analyses[i].bound}})).append(" 1\n");
  }
}

}  // namespace kraken::exporter
