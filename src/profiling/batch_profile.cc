#include "profiling/batch_profile.h"

#include <unistd.h>

#include "base/duration.h"

namespace kraken::profiling {
namespace {

// Equal for values of one series: the entity fields NVML fills, the metric, the source.
std::string SeriesKey(const SeriesEntity& e, const SampleBatch::Value& v) {
  std::string key = std::to_string(e.gpu_index) + '|' + e.gpu_uuid + '|' + std::to_string(e.gpu_instance_id) + '|' +
                    std::to_string(e.pid) + '|' + e.mig_profile + '|' + e.hostname + '|' +
                    std::to_string(static_cast<int>(v.metric)) + '|' + v.source_name;
  for (const auto& [name, value] : e.labels) key += '|' + name + '=' + value;
  return key;
}

std::string Hostname() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "";
}

}  // namespace

ProfileMetadata SampledRunMetadata(const std::string& source, int64_t interval_ns) {
  ProfileMetadata metadata;
  metadata.format = "kraken-profile";
  metadata.hostname = Hostname();
  metadata.accelerator_vendor = Vendor::kNvidia;
  metadata.source = source;
  metadata.attributes["interval"] = FormatDurationNs(interval_ns);
  return metadata;
}

void BatchProfileBuilder::Add(const SampleBatch& batch) {
  for (const SampleBatch::Value& v : batch.values) {
    if (v.entity < 0 || static_cast<size_t>(v.entity) >= batch.entities.size()) continue;
    const SeriesEntity& entity = batch.entities[static_cast<size_t>(v.entity)];
    auto [it, added] = series_index_.emplace(SeriesKey(entity, v), profile_.series.size());
    if (added) {
      Series series;
      series.metric = v.metric;
      series.source_name = v.source_name;
      series.entity = entity;
      profile_.series.push_back(std::move(series));
    }
    profile_.series[it->second].samples.push_back(Sample{batch.time_ns, v.value});
  }
}

}  // namespace kraken::profiling
