#include "promql/cluster_query.h"

#include <algorithm>
#include <chrono>
#include <future>
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

// The framebuffer's size fields are read only for a GPU's memory total (pod_profiles.cc:
// FB_TOTAL, or FREE + USED + RESERVED at one instant), so at a coarser step: a quarter
// to a third of a namespace's series, at 1/60 of the points.
bool IsMemoryTotalMetric(Metric m) {
  return m == Metric::kFbFreeBytes || m == Metric::kFbTotalBytes || m == Metric::kFbReservedBytes;
}
constexpr int64_t kMemoryTotalStepFactor = 60;

enum class NameSet { kAll, kSampled, kMemoryTotals };

bool InSet(Metric m, NameSet set) {
  bool wanted = false;
  for (Metric w : kWantedMetrics) wanted = wanted || w == m;
  if (!wanted) return false;
  if (set == NameSet::kAll) return true;
  return IsMemoryTotalMetric(m) == (set == NameSet::kMemoryTotals);
}

std::string NameRegex(NameSet set) {
  std::set<std::string_view> names;
  for (const prometheus::DcgmMetricEntry& entry : prometheus::DcgmMetricCatalog()) {
    if (!InSet(entry.metric, set)) continue;
    names.insert(entry.field);
    if (!entry.legacy_name.empty()) names.insert(entry.legacy_name);
  }
  // kraken's agent's per-pod shares of shared GPUs (pod_share_catalog.h) stand for the same metrics.
  for (const prometheus::PodShareMetric& share : prometheus::PodShareMetrics())
    if (InSet(share.metric, set)) names.insert(share.name);
  std::string regex;
  for (std::string_view n : names) {
    if (!regex.empty()) regex += '|';
    regex += n;
  }
  return regex;
}

}  // namespace

std::string DcgmMetricNameRegex() { return NameRegex(NameSet::kAll); }

namespace {

constexpr std::pair<const char*, const char*> kPodSpellings[] = {
    {"namespace", "pod"}, {"exported_namespace", "exported_pod"}, {"pod_namespace", "pod_name"}};

// One selector per label spelling, OR-ed; `pod_matcher` is "" or `="name"` / `=~"regex"`.
std::string SpellingSelectors(const std::string& namespace_name, const std::string& pod_matcher,
                              NameSet set = NameSet::kAll) {
  const std::string names = "__name__=~\"" + NameRegex(set) + "\"";
  std::string query;
  for (const auto& [ns_label, pod_label] : kPodSpellings) {
    std::string selector = "{" + names + "," + ns_label + "=\"" + namespace_name + "\"";
    if (!pod_matcher.empty()) selector += std::string(",") + pod_label + pod_matcher;
    selector += "}";
    if (!query.empty()) query += " or ";
    query += selector;
  }
  return query;
}

// The sample-interval probe (sample_interval.h): timestamp() drops the metric name, so each
// name and label spelling is its own term, and `or` keeps one series per remaining label set
// (a GPU's fields share their scrape times).
std::string TimestampProbe(const std::string& namespace_name, const std::string& pod_matcher) {
  std::string query;
  std::string names = NameRegex(NameSet::kSampled);
  for (size_t begin = 0; begin < names.size();) {
    size_t end = std::min(names.find('|', begin), names.size());
    for (const auto& [ns_label, pod_label] : kPodSpellings) {
      if (!query.empty()) query += " or ";
      query += "timestamp({__name__=\"" + names.substr(begin, end - begin) + "\"," + ns_label + "=\"" +
               namespace_name + "\"" + (pod_matcher.empty() ? "" : std::string(",") + pod_label + pod_matcher) + "})";
    }
    begin = end + 1;
  }
  return query;
}

// Kubernetes names are [a-z0-9.-]: only '.' means something in a regex (escaped for
// the regex, and its backslash for the PromQL string).
std::string PodAlternation(const std::vector<std::string>& pods) {
  std::string regex;
  for (const std::string& pod : pods) {
    if (!regex.empty()) regex += '|';
    for (char c : pod) regex += c == '.' ? std::string("\\\\.") : std::string(1, c);
  }
  return "=~\"" + regex + "\"";
}

}  // namespace

Result<std::string> BuildDcgmQuery(const std::string& namespace_name, const std::string& pod) {
  if (!IsKubernetesName(namespace_name))
    return InvalidInput("--namespace '" + namespace_name + "' is not a Kubernetes namespace name");
  if (!pod.empty() && !IsKubernetesName(pod)) return InvalidInput("--pod '" + pod + "' is not a Kubernetes pod name");
  return SpellingSelectors(namespace_name, pod.empty() ? "" : "=\"" + pod + "\"");
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

namespace {

// The pods' DCGM series: the sampled fields at the plan's step, the memory-total fields at
// a step kMemoryTotalStepFactor times as long from the same start, so their instants are
// instants of the sampled fields too (where FREE + USED is summed).
Status QueryDcgmPaged(PrometheusClient& client, const std::string& pod_matcher, const ClusterQueryOptions& options,
                      QueryPlan* plan, int64_t* end_s, std::vector<RangeSeries>* out) {
  const std::string& ns = options.namespace_name;
  KRAKEN_RETURN_IF_ERROR(
      QueryRangePaged(client, SpellingSelectors(ns, pod_matcher, NameSet::kSampled), options, plan, end_s, out));
  ClusterQueryOptions coarse = options;
  coarse.end_s = *end_s;
  coarse.step_s = plan->step_s * std::clamp<int64_t>(options.range_s / plan->step_s, 1, kMemoryTotalStepFactor);
  QueryPlan coarse_plan;
  int64_t coarse_end_s = 0;
  return QueryRangePaged(client, SpellingSelectors(ns, pod_matcher, NameSet::kMemoryTotals), coarse, &coarse_plan,
                         &coarse_end_s, out);
}

int64_t NowS() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Fixes the end (0 = now) and the step: an auto step is measured on `pod_matcher`'s
// sampled series so it is never finer than the data.
Result<ClusterQueryOptions> FixEndAndStep(PrometheusClient& client, const ClusterQueryOptions& options,
                                          const std::string& pod_matcher, ClusterQueryResult* result) {
  ClusterQueryOptions fixed = options;
  if (fixed.end_s == 0) fixed.end_s = NowS();
  if (fixed.step_s == 0 && !fixed.auto_step_at_least_sample_interval) return fixed;  // the range rule alone
  KRAKEN_ASSIGN_OR_RETURN(
      StepChoice step, ChooseStep(client, TimestampProbe(options.namespace_name, pod_matcher),
                                  fixed.end_s, fixed.range_s, fixed.step_s, fixed.points_per_window));
  fixed.step_s = step.step_s;
  result->step_reason = step.reason;
  result->sample_interval_s = step.sample_interval_s;
  return fixed;
}

}  // namespace

Result<ClusterQueryResult> QueryCluster(PrometheusClient& client, const ClusterQueryOptions& options) {
  ClusterQueryResult result;
  KRAKEN_ASSIGN_OR_RETURN(result.query, BuildDcgmQuery(options.namespace_name, options.pod));
  std::vector<RangeSeries> all;
  std::string pod_matcher = options.pod.empty() ? "" : "=\"" + options.pod + "\"";
  KRAKEN_ASSIGN_OR_RETURN(ClusterQueryOptions fixed, FixEndAndStep(client, options, pod_matcher, &result));
  KRAKEN_RETURN_IF_ERROR(QueryDcgmPaged(client, pod_matcher, fixed, &result.plan, &result.end_s, &all));
  for (const RangeSeries& s : all) {
    ++result.series_received;
    result.points_received += static_cast<int64_t>(s.values.size());
  }
  result.pods = BuildPodProfiles(all, client.url());
  return result;
}

}  // namespace kraken::promql

namespace kraken::promql {
namespace {

// The namespace's pods over [start_s, end_s] and how many series each has.
Result<std::map<PodKey, int64_t>> ListPodSeries(PrometheusClient& client, const std::string& namespace_name,
                                                int64_t start_s, int64_t end_s, int64_t* series_without_pod) {
  std::vector<std::string> matchers;
  const std::string names = "__name__=~\"" + DcgmMetricNameRegex() + "\"";
  for (const auto& [ns_label, pod_label] : kPodSpellings)
    matchers.push_back("{" + names + "," + ns_label + "=\"" + namespace_name + "\"}");
  KRAKEN_ASSIGN_OR_RETURN(std::vector<RangeSeries> series, client.Series(matchers, start_s, end_s));
  std::map<PodKey, int64_t> pods;
  for (const RangeSeries& s : series) {
    PodKey key;
    if (!SeriesPod(s, &key.namespace_name, &key.pod)) ++*series_without_pod;
    else if (key.namespace_name == namespace_name && IsKubernetesName(key.pod)) ++pods[key];
  }
  return pods;
}

// Consecutive pods whose series x instants stay within the budget (at least one pod each).
std::vector<std::vector<std::string>> PodBatches(const std::map<PodKey, int64_t>& pods, int64_t instants,
                                                 int64_t points_per_batch) {
  constexpr size_t kMaxPodsPerBatch = 500;  // keeps the regex, and the request, small
  std::vector<std::vector<std::string>> batches;
  int64_t points = 0;
  for (const auto& [key, series] : pods) {
    int64_t pod_points = series * instants;
    if (batches.empty() || batches.back().size() >= kMaxPodsPerBatch ||
        (points + pod_points > points_per_batch && !batches.back().empty())) {
      batches.emplace_back();
      points = 0;
    }
    batches.back().push_back(key.pod);
    points += pod_points;
  }
  return batches;
}

void AddCounters(const PodProfiles& batch, PodProfiles* total) {
  total->series_without_pod += batch.series_without_pod;
  total->blank_values += batch.blank_values;
  total->non_finite_values += batch.non_finite_values;
  total->unknown_metric_series += batch.unknown_metric_series;
}

struct FetchedBatch {
  PodProfiles profiles;
  int64_t series = 0, points = 0;
};

Result<FetchedBatch> FetchBatch(PrometheusClient& client, const ClusterQueryOptions& options,
                                const std::vector<std::string>& pods) {
  std::vector<RangeSeries> all;
  QueryPlan plan;
  int64_t end_s = 0;
  KRAKEN_RETURN_IF_ERROR(QueryDcgmPaged(client, PodAlternation(pods), options, &plan, &end_s, &all));
  FetchedBatch batch;
  for (const RangeSeries& s : all) {
    ++batch.series;
    batch.points += static_cast<int64_t>(s.values.size());
  }
  batch.profiles = BuildPodProfiles(all, client.url());
  return batch;
}

}  // namespace

Result<ClusterQueryResult> QueryClusterInBatches(PrometheusClient& client, const ClusterQueryOptions& options,
                                                 const std::function<void(PodProfiles&)>& consume) {
  ClusterQueryResult result;
  KRAKEN_ASSIGN_OR_RETURN(result.query, BuildDcgmQuery(options.namespace_name, options.pod));
  ClusterQueryOptions fixed = options;
  if (fixed.end_s == 0) fixed.end_s = NowS();
  KRAKEN_ASSIGN_OR_RETURN(auto pods, ListPodSeries(client, options.namespace_name, fixed.end_s - fixed.range_s,
                                                   fixed.end_s, &result.pods.series_without_pod));
  // The sample interval is measured on the first few pods' series: a few dozen points.
  constexpr size_t kProbePods = 3;
  std::vector<std::string> probe_pods;
  for (auto it = pods.begin(); it != pods.end() && probe_pods.size() < kProbePods; ++it)
    probe_pods.push_back(it->first.pod);
  KRAKEN_ASSIGN_OR_RETURN(fixed, FixEndAndStep(client, fixed, probe_pods.empty() ? "" : PodAlternation(probe_pods),
                                               &result));
  KRAKEN_ASSIGN_OR_RETURN(result.plan, PlanRangeQuery(fixed.end_s, fixed.range_s, fixed.step_s, fixed.points_per_window));
  result.end_s = fixed.end_s;
  auto batches = PodBatches(pods, result.plan.total_points, options.points_per_batch);
  // Two batches in flight: Prometheus encodes the answers (the slow part) on two cores.
  // They are consumed in order, so the output does not depend on which answers first.
  constexpr size_t kInFlight = 2;
  for (size_t first = 0; first < batches.size(); first += kInFlight) {
    std::vector<std::future<Result<FetchedBatch>>> running;
    for (size_t i = first; i < std::min(batches.size(), first + kInFlight); ++i)
      running.push_back(std::async(std::launch::async, [&client, &fixed, &batches, i] {
        return FetchBatch(client, fixed, batches[i]);
      }));
    for (auto& answer : running) {
      KRAKEN_ASSIGN_OR_RETURN(FetchedBatch batch, answer.get());
      result.series_received += batch.series;
      result.points_received += batch.points;
      AddCounters(batch.profiles, &result.pods);
      consume(batch.profiles);
    }
  }
  return result;
}

}  // namespace kraken::promql
