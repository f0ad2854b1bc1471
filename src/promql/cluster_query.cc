#include "promql/cluster_query.h"

#include <chrono>
#include <set>

#include "importers/prometheus/pod_share_catalog.h"
#include "model/dcgm_metric_catalog.h"

namespace kraken::promql {
namespace {

// What series_summary, demand and the MIG planner read (analysis/demand.cc FromSamples).
constexpr Metric kWantedMetrics[] = {
    Metric::kGpuUtilPct,        Metric::kGrEngineActiveRatio, Metric::kSmActiveRatio,   Metric::kSmOccupancyRatio,
    Metric::kTensorActiveRatio, Metric::kDramActiveRatio,     Metric::kFbUsedBytes,     Metric::kFbFreeBytes,
    Metric::kFbTotalBytes,      Metric::kFbReservedBytes,     Metric::kPcieTxBytesPerS, Metric::kPcieRxBytesPerS,
    Metric::kNvlinkTxBytesPerS, Metric::kNvlinkRxBytesPerS,
};

// RFC 1123 names: lowercase letters, digits, '-' and '.', at most 253 characters.
bool IsKubernetesName(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  return true;
}

}  // namespace

std::string DcgmMetricNameRegex() {
  std::set<std::string_view> names;
  for (const prometheus::DcgmMetricEntry& entry : prometheus::DcgmMetricCatalog()) {
    bool wanted = false;
    for (Metric m : kWantedMetrics) wanted = wanted || entry.metric == m;
    if (!wanted) continue;
    names.insert(entry.field);
    if (!entry.legacy_name.empty()) names.insert(entry.legacy_name);
  }
  // kraken's agent's per-pod shares of shared GPUs (pod_share_catalog.h) stand for the same metrics.
  for (const prometheus::PodShareMetric& share : prometheus::PodShareMetrics())
    for (Metric m : kWantedMetrics)
      if (share.metric == m) names.insert(share.name);
  std::string regex;
  for (std::string_view n : names) {
    if (!regex.empty()) regex += '|';
    regex += n;
  }
  return regex;
}

Result<std::string> BuildDcgmQuery(const std::string& namespace_name, const std::string& pod) {
  if (!IsKubernetesName(namespace_name))
    return InvalidInput("--namespace '" + namespace_name + "' is not a Kubernetes namespace name");
  if (!pod.empty() && !IsKubernetesName(pod)) return InvalidInput("--pod '" + pod + "' is not a Kubernetes pod name");
  const std::string names = "__name__=~\"" + DcgmMetricNameRegex() + "\"";
  const std::pair<const char*, const char*> spellings[] = {
      {"namespace", "pod"}, {"exported_namespace", "exported_pod"}, {"pod_namespace", "pod_name"}};
  std::string query;
  for (const auto& [ns_label, pod_label] : spellings) {
    std::string selector = "{" + names + "," + ns_label + "=\"" + namespace_name + "\"";
    if (!pod.empty()) selector += std::string(",") + pod_label + "=\"" + pod + "\"";
    selector += "}";
    if (!query.empty()) query += " or ";
    query += selector;
  }
  return query;
}

Status QueryRangePaged(PrometheusClient& client, const std::string& query, const ClusterQueryOptions& options,
                       QueryPlan* plan, int64_t* end_s, std::vector<RangeSeries>* out) {
  *end_s = options.end_s;
  if (*end_s == 0) {
    *end_s =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  KRAKEN_ASSIGN_OR_RETURN(*plan, PlanRangeQuery(*end_s, options.range_s, options.step_s, options.points_per_window));
  for (const QueryWindow& window : plan->windows) {
    auto answer = client.QueryRange(query, window.start_s, window.end_s, plan->step_s);
    if (!answer.ok()) {
      return answer.status().WithContext("window " + std::to_string(window.start_s) + ".." +
                                         std::to_string(window.end_s));
    }
    for (RangeSeries& s : *answer) out->push_back(std::move(s));
  }
  return Status::Ok();
}

Result<ClusterQueryResult> QueryCluster(PrometheusClient& client, const ClusterQueryOptions& options) {
  ClusterQueryResult result;
  KRAKEN_ASSIGN_OR_RETURN(result.query, BuildDcgmQuery(options.namespace_name, options.pod));
  std::vector<RangeSeries> all;
  KRAKEN_RETURN_IF_ERROR(QueryRangePaged(client, result.query, options, &result.plan, &result.end_s, &all));
  for (const RangeSeries& s : all) {
    ++result.series_received;
    result.points_received += static_cast<int64_t>(s.values.size());
  }
  result.pods = BuildPodProfiles(all, client.url());
  return result;
}

}  // namespace kraken::promql
