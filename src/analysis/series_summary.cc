#include "analysis/series_summary.h"

#include <algorithm>

namespace kraken {
namespace {

std::string EntityLabel(const SeriesEntity& e) {
  std::string label = e.gpu_index >= 0 ? "gpu " + std::to_string(e.gpu_index) : "gpu ?";
  if (e.gpu_instance_id >= 0) label += " MIG " + std::to_string(e.gpu_instance_id);
  if (!e.mig_profile.empty()) label += " " + e.mig_profile;
  if (e.pid >= 0) label += " pid " + std::to_string(e.pid);
  if (!e.process_name.empty()) label += " " + e.process_name;
  if (!e.pod.empty()) label += " pod " + (e.namespace_name.empty() ? "" : e.namespace_name + "/") + e.pod;
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
