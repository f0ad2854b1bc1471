#include "k8s/client/annotations.h"

#include <algorithm>
#include <cstdio>

#include "base/json_writer.h"
#include "k8s/client/demand_annotation.h"

namespace kraken::k8s {
namespace {

std::string Ratio(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", std::clamp(value, 0.0, 1.0));
  return buffer;
}

int ColocationRank(const std::string& c) {
  if (c == "dedicated") return 3;
  if (c == "mig") return 2;
  if (c == "share") return 1;
  return 0;
}

// The common value, "mixed" when the pods disagree, unset when none has one.
std::optional<std::string> Agreed(const std::vector<WorkloadAnnotations>& pods,
                                  std::optional<std::string> WorkloadAnnotations::*field) {
  std::optional<std::string> out;
  for (const WorkloadAnnotations& p : pods) {
    const auto& v = p.*field;
    if (!v) continue;
    if (!out)
      out = v;
    else if (*out != *v)
      return std::string("mixed");
  }
  return out;
}

}  // namespace

std::optional<PodSetting> FindPodSetting(const std::map<std::string, std::string>& annotations,
                                         std::string_view kraken_key) {
  if (auto it = annotations.find(std::string(kraken_key)); it != annotations.end()) return PodSetting{it->first, it->second};
  std::string_view name = kraken_key;
  if (name.substr(0, sizeof(kKrakenPrefix) - 1) != kKrakenPrefix) return std::nullopt;
  name.remove_prefix(sizeof(kKrakenPrefix) - 1);
  std::string design_key = kDesignPrefix;
  design_key.append(name);
  if (auto it = annotations.find(design_key); it != annotations.end()) return PodSetting{it->first, it->second};
  return std::nullopt;
}

bool IsPodSettingKey(std::string_view key) {
  return key.substr(0, sizeof(kKrakenPrefix) - 1) == kKrakenPrefix ||
         key.substr(0, sizeof(kDesignPrefix) - 1) == kDesignPrefix;
}

std::map<std::string, std::string> ToAnnotations(const WorkloadAnnotations& a) {
  std::map<std::string, std::string> out;
  if (a.workload_type) out[kWorkloadTypeKey] = *a.workload_type;
  if (a.bound) out[kBoundKey] = *a.bound;
  if (a.gpu_util_p95) out[kGpuUtilP95Key] = Ratio(*a.gpu_util_p95);
  if (a.disagg_score) out[kDisaggScoreKey] = Ratio(*a.disagg_score);
  if (a.colocation_class) out[kColocationClassKey] = *a.colocation_class;
  if (a.demand) out[kDemandKey] = *a.demand;
  if (a.mps_thread_percentage) out[kMpsThreadPercentageKey] = std::to_string(*a.mps_thread_percentage);
  return out;
}

std::map<std::string, std::string> WithPrefixes(std::map<std::string, std::string> annotations,
                                                const std::vector<std::string>& prefixes) {
  const std::string_view kraken_prefix = kKrakenPrefix;
  std::vector<std::pair<std::string, std::string>> copies;
  for (const std::string& prefix : prefixes) {
    if (prefix + "/" == kraken_prefix) continue;
    for (const auto& [key, value] : annotations)
      if (std::string_view(key).substr(0, kraken_prefix.size()) == kraken_prefix)
        copies.emplace_back(prefix + "/" + key.substr(kraken_prefix.size()), value);
  }
  for (auto& [key, value] : copies) annotations[key] = std::move(value);
  return annotations;
}

bool IsAnnotationPrefix(std::string_view prefix) {
  if (prefix.empty() || prefix.size() > 253) return false;
  size_t start = 0;
  while (start <= prefix.size()) {
    size_t end = prefix.find('.', start);
    if (end == std::string_view::npos) end = prefix.size();
    std::string_view label = prefix.substr(start, end - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    start = end + 1;
  }
  return true;
}

WorkloadAnnotations AggregateJob(const std::vector<WorkloadAnnotations>& pods) {
  WorkloadAnnotations job;
  job.workload_type = Agreed(pods, &WorkloadAnnotations::workload_type);
  job.bound = Agreed(pods, &WorkloadAnnotations::bound);
  for (const WorkloadAnnotations& p : pods) {
    if (p.gpu_util_p95) job.gpu_util_p95 = std::max(job.gpu_util_p95.value_or(0.0), *p.gpu_util_p95);
    if (p.disagg_score) job.disagg_score = std::min(job.disagg_score.value_or(1.0), *p.disagg_score);
    if (p.colocation_class &&
        (!job.colocation_class || ColocationRank(*p.colocation_class) > ColocationRank(*job.colocation_class)))
      job.colocation_class = p.colocation_class;
  }
  return job;
}

std::map<std::string, std::string> ChangedAnnotations(const std::map<std::string, std::string>& current,
                                                      const std::map<std::string, std::string>& desired) {
  std::map<std::string, std::string> changed;
  for (const auto& [key, value] : desired) {
    auto it = current.find(key);
    if (it == current.end() || it->second != value) changed[key] = value;
  }
  return changed;
}

std::string AnnotationPatchBody(const std::map<std::string, std::string>& annotations) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Key("metadata").BeginObject().Key("annotations").BeginObject();
  for (const auto& [key, value] : annotations) json.Field(key, value);
  json.EndObject().EndObject().EndObject();
  return json.Take();
}

}  // namespace kraken::k8s
