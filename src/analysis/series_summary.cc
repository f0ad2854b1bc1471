#include "analysis/series_summary.h"

#include <algorithm>

namespace kraken {
namespace {

// Labels cluster series carry instead of a GPU identity (Helios virtual clusters, PAI
// workers, GenAI request types), in the order they are printed.
constexpr const char* kClusterLabels[] = {"vc", "sequence", "job", "worker", "request_type"};

std::string EntityLabel(const SeriesEntity& e) {
  bool has_gpu = e.gpu_index >= 0 || !e.gpu_uuid.empty() || !e.pci_bus_id.empty();
  // Only for series with no GPU identity: a Prometheus series may carry a "job" label
  // that says nothing about the GPU it describes.
  bool has_cluster_label = false;
  for (const char* key : kClusterLabels) has_cluster_label |= !has_gpu && e.labels.count(key) > 0;
  std::string label;
  if (e.gpu_index >= 0) {
    label = "gpu " + std::to_string(e.gpu_index);
  } else if (has_gpu || !has_cluster_label) {
    label = "gpu ?";
  }
  for (const char* key : kClusterLabels) {
    auto it = e.labels.find(key);
    if (!has_cluster_label || it == e.labels.end()) continue;
    if (!label.empty()) label += " ";
    // A worker is a bare number and needs its name; the other values name themselves.
    label += std::string_view(key) == "worker" ? "worker " + it->second : it->second;
  }
  if (e.gpu_instance_id >= 0) label += " MIG " + std::to_string(e.gpu_instance_id);
  if (!e.mig_profile.empty()) label += " " + e.mig_profile;
  if (e.pid >= 0) label += " pid " + std::to_string(e.pid);
  if (!e.process_name.empty()) label += " " + e.process_name;
  if (!e.pod.empty())
    label += (label.empty() ? "pod " : " pod ") + (e.namespace_name.empty() ? "" : e.namespace_name + "/") + e.pod;
  auto phase = e.labels.find("phase");
  if (phase != e.labels.end()) label += " [" + phase->second + "]";
  return label;
}

}  // namespace

std::vector<SeriesStats> SummarizeSeries(const Profile& profile) {
  std::vector<SeriesStats> out;
  for (const Series& s : profile.series) {
    if (s.samples.empty()) continue;
    SeriesStats stats;
    stats.series = &s;
    stats.label = EntityLabel(s.entity);
    std::vector<double> values;
    values.reserve(s.samples.size());
    for (const Sample& sample : s.samples) values.push_back(sample.value);
    std::sort(values.begin(), values.end());
    stats.p95 = QuantileSorted(values, 0.95);
    stats.values = Summarize(std::move(values));
    out.push_back(std::move(stats));
  }
  std::stable_sort(out.begin(), out.end(), [](const SeriesStats& a, const SeriesStats& b) {
    if (a.series->metric != b.series->metric) return a.series->metric < b.series->metric;
    return a.label < b.label;
  });
  return out;
}

}  // namespace kraken
