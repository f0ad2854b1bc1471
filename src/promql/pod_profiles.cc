#include "promql/pod_profiles.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "base/text.h"
#include "importers/common/dcgm_entity.h"
#include "importers/prometheus/pod_share_catalog.h"
#include "model/dcgm_metric_catalog.h"

namespace kraken::promql {
namespace {

constexpr std::string_view kExportedPrefix = "exported_";
constexpr std::string_view kScrapePrefix = "scrape_";

bool HasLabel(const std::vector<prometheus::Label>& labels, std::string_view name) {
  return std::any_of(labels.begin(), labels.end(), [&](const prometheus::Label& l) { return l.name == name; });
}

// Identity of a series across windows: all labels, sorted.
std::string SeriesKey(const RangeSeries& s) {
  auto labels = s.labels;
  std::sort(labels.begin(), labels.end());
  std::string key;
  for (const auto& [name, value] : labels) key += name + '\x1e' + value + '\x1f';
  return key;
}

std::string LabelValue(const RangeSeries& s, std::string_view name) {
  for (const auto& [n, v] : s.labels)
    if (n == name) return v;
  return "";
}

// Per pod under construction: the profile plus its devices and which series is which.
struct PodBuilder {
  Profile profile;
  prometheus::DeviceCollector devices;
  std::map<std::string, size_t> series_by_key;
  std::vector<int> device_of_series;
};

// Whole-GPU framebuffer total: FB_TOTAL when exported, else FREE + USED (+ RESERVED) at
// the first instant all of them have a value (old exporters publish no FB_TOTAL).
void SetDeviceMemory(PodBuilder* pod) {
  std::map<int, std::map<Metric, const Series*>> whole_gpu;
  for (size_t i = 0; i < pod->profile.series.size(); ++i) {
    const Series& s = pod->profile.series[i];
    if (s.entity.gpu_instance_id >= 0 || s.samples.empty() || pod->device_of_series[i] < 0) continue;
    whole_gpu[pod->device_of_series[i]][s.metric] = &s;
  }
  for (const auto& entry : whole_gpu) {
    // Not a structured binding: clang 14 (make fuzz) cannot capture one in the lambda.
    const int device = entry.first;
    const std::map<Metric, const Series*>& by_metric = entry.second;
    auto find = [&](Metric m) -> const Series* {
      auto it = by_metric.find(m);
      return it == by_metric.end() ? nullptr : it->second;
    };
    if (const Series* total = find(Metric::kFbTotalBytes)) {
      pod->devices.SetMemoryBytes(device, total->samples.front().value);
      continue;
    }
    const Series* free = find(Metric::kFbFreeBytes);
    const Series* used = find(Metric::kFbUsedBytes);
    const Series* reserved = find(Metric::kFbReservedBytes);
    if (free == nullptr || used == nullptr) continue;
    for (const Sample& f : free->samples) {
      auto at = [&](const Series* s) -> std::optional<double> {
        if (s == nullptr) return 0.0;
        auto it = std::lower_bound(s->samples.begin(), s->samples.end(), f.time_ns,
                                   [](const Sample& a, TimeNs t) { return a.time_ns < t; });
        if (it == s->samples.end() || it->time_ns != f.time_ns) return std::nullopt;
        return it->value;
      };
      auto u = at(used), r = at(reserved);
      if (!u || !r) continue;
      pod->devices.SetMemoryBytes(device, f.value + *u + *r);
      break;
    }
  }
}

// The same GPU or MIG instance.
bool SameDevice(const SeriesEntity& a, const SeriesEntity& b) {
  bool same_gpu = !a.gpu_uuid.empty() && !b.gpu_uuid.empty() ? a.gpu_uuid == b.gpu_uuid : a.gpu_index == b.gpu_index;
  return same_gpu && a.gpu_instance_id == b.gpu_instance_id && a.hostname == b.hostname;
}

// A pod measured by kraken's per-pod share series (kraken_pod_gpu_*) on a GPU keeps those
// and drops the device-level series of the same metric on that GPU: on a shared GPU
// dcgm-exporter copies the whole device's values to every pod, which would count each
// pod as using all of it.
void PreferMeasuredShares(PodBuilder* pod) {
  std::vector<Series>& series = pod->profile.series;
  std::vector<uint8_t> drop(series.size(), 0);
  for (const Series& share : series) {
    if (prometheus::FindPodShareMetric(share.source_name) == nullptr || share.metric == Metric::kOther) continue;
    for (size_t i = 0; i < series.size(); ++i)
      if (prometheus::FindPodShareMetric(series[i].source_name) == nullptr && series[i].metric == share.metric &&
          SameDevice(series[i].entity, share.entity))
        drop[i] = 1;
  }
  size_t kept = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    if (drop[i]) continue;
    if (kept != i) {
      series[kept] = std::move(series[i]);
      pod->device_of_series[kept] = pod->device_of_series[i];
    }
    ++kept;
  }
  series.resize(kept);
  pod->device_of_series.resize(kept);
  pod->series_by_key.clear();  // indices moved; nothing reads them after this
}

// The canonical metric and unit factor of a series name: the DCGM catalog's, or kraken's
// per-pod share series'; nullopt for names neither knows.
struct NameInfo {
  Metric metric = Metric::kOther;
  double scale = 1;
  bool known = false;
  bool device = false;  // describes a GPU or MIG instance (DCGM fields, pod shares)
};
NameInfo InfoOfName(const std::string& name) {
  if (const prometheus::DcgmMetricEntry* entry = prometheus::FindDcgmMetric(name))
    return {entry->metric, entry->scale, true, prometheus::IsDcgmMetricName(name)};
  if (const prometheus::PodShareMetric* share = prometheus::FindPodShareMetric(name))
    return {share->metric, share->scale, true, true};
  return {Metric::kOther, 1, false, prometheus::IsDcgmMetricName(name)};
}

}  // namespace

std::vector<prometheus::Label> NormalizeDcgmLabels(const std::vector<std::pair<std::string, std::string>>& labels) {
  bool exported = false;
  for (const auto& [name, value] : labels) exported = exported || StartsWith(name, kExportedPrefix);
  std::vector<prometheus::Label> out;
  for (const auto& [name, value] : labels) {
    if (name == "__name__") continue;
    if (exported && (name == "pod" || name == "namespace" || name == "container")) {
      out.push_back({std::string(kScrapePrefix) + name, value});
    } else if (StartsWith(name, kExportedPrefix)) {
      out.push_back({name.substr(kExportedPrefix.size()), value});
    } else {
      out.push_back({name, value});
    }
  }
  if (!HasLabel(out, "Hostname") && !HasLabel(out, "hostname")) {
    for (const auto& [name, value] : labels) {
      if (name != "instance") continue;
      std::string host = value;
      size_t colon = host.rfind(':');
      if (colon != std::string::npos && host.find(']') == std::string::npos) host.resize(colon);
      out.push_back({"Hostname", host});
    }
  }
  return out;
}

PodProfiles BuildPodProfiles(const std::vector<RangeSeries>& series, const std::string& source_url) {
  PodProfiles out;
  std::map<PodKey, PodBuilder> builders;
  std::map<PodKey, std::set<std::string>> hosts;
  for (const RangeSeries& rs : series) {
    std::string name = LabelValue(rs, "__name__");
    std::vector<prometheus::Label> labels = NormalizeDcgmLabels(rs.labels);
    SeriesEntity entity = prometheus::EntityFromLabels(labels);
    if (entity.pod.empty()) {
      ++out.series_without_pod;
      continue;
    }
    PodKey key{entity.namespace_name, entity.pod};
    PodBuilder& pod = builders[key];
    auto [it, inserted] = pod.series_by_key.emplace(SeriesKey(rs), pod.profile.series.size());
    const NameInfo info = InfoOfName(name);
    if (inserted) {
      Series& s = pod.profile.series.emplace_back();
      s.source_name = name;
      s.entity = entity;
      s.metric = info.metric;
      if (!info.known || info.metric == Metric::kOther) ++out.unknown_metric_series;
      pod.device_of_series.push_back(info.device ? pod.devices.Observe(entity) : -1);
      if (!entity.hostname.empty()) hosts[key].insert(entity.hostname);
    }
    Series& s = pod.profile.series[it->second];
    double scale = info.scale;
    size_t n = std::min(rs.times_ms.size(), rs.values.size());
    for (size_t i = 0; i < n; ++i) {
      std::optional<double> value = prometheus::ParseSampleValue(rs.values[i]);
      if (!value || !std::isfinite(*value)) {
        ++out.non_finite_values;
        continue;
      }
      if (prometheus::IsDcgmMetricName(name) && prometheus::IsDcgmBlank(rs.values[i], *value)) {
        ++out.blank_values;
        continue;
      }
      s.samples.push_back({rs.times_ms[i] * 1'000'000, *value * scale});
    }
  }
  for (auto& [key, pod] : builders) {
    for (Series& s : pod.profile.series) {
      std::stable_sort(s.samples.begin(), s.samples.end(),
                       [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; });
      // A window's last instant is never the next one's first, but a re-run query can
      // overlap: keep one sample per instant.
      s.samples.erase(std::unique(s.samples.begin(), s.samples.end(),
                                  [](const Sample& a, const Sample& b) { return a.time_ns == b.time_ns; }),
                      s.samples.end());
    }
    PreferMeasuredShares(&pod);
    SetDeviceMemory(&pod);
    Profile& profile = pod.profile;
    profile.devices = pod.devices.TakeDevices();
    profile.metadata.source = key.namespace_name + "/" + key.pod;
    profile.metadata.format = "prometheus-api";
    profile.metadata.accelerator_vendor = Vendor::kNvidia;
    profile.metadata.attributes["prometheus"] = source_url;
    const std::set<std::string>& pod_hosts = hosts[key];
    std::string joined;
    for (const std::string& h : pod_hosts) {
      if (!joined.empty()) joined += ',';
      joined += h;
    }
    profile.metadata.hostname = joined;
    int64_t samples = 0;
    for (const Series& s : profile.series) samples += static_cast<int64_t>(s.samples.size());
    profile.import_counters["prometheus_samples"] = samples;
    out.by_pod.emplace(key, std::move(profile));
  }
  return out;
}

}  // namespace kraken::promql
