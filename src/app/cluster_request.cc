#include "app/cluster_request.h"

#include <algorithm>

#include "app/slowdown_budget.h"
#include "model/device_catalog.h"
#include "report/pooling_output.h"

namespace kraken {
namespace {

Result<promql::ClusterQueryOptions> MakeQueryOptions(const ClusterAnalyzeSettings& settings) {
  if (settings.namespace_name.empty()) return InvalidInput("--prometheus needs --namespace NS");
  promql::ClusterQueryOptions options;
  options.namespace_name = settings.namespace_name;
  options.pod = settings.pod;
  options.end_s = settings.end_s;
  auto range = promql::ParsePromDurationSeconds(settings.range);
  if (!range.ok()) return range.status().WithContext("--range");
  options.range_s = *range;
  options.auto_step_at_least_sample_interval = true;
  if (settings.step != "auto") {
    auto step = promql::ParsePromDurationSeconds(settings.step);
    if (!step.ok()) return step.status().WithContext("--step");
    options.step_s = *step;
  }
  return options;
}

std::vector<int64_t> AnswerTimesSeconds(const Profile& pod) {
  std::vector<int64_t> times;
  for (const Series& s : pod.series)
    for (const Sample& sample : s.samples) times.push_back(sample.time_ns / 1'000'000'000);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

}  // namespace

Result<ClusterPooling> AnalyzeClusterPooling(promql::PrometheusClient& client,
                                             const promql::ClusterQueryOptions& options, const DeviceSpec* fallback,
                                             const pooling::PoolingOptions& pooling_options, bool keep_answer_times) {
  ClusterPooling out;
  // Each pod is reduced to its GPU uses as its batch arrives; the samples go with the batch.
  auto reduce = [&](promql::PodProfiles& batch) {
    for (auto& [key, profile] : batch.by_pod) {
      for (pooling::PodGpuUse& use : pooling::PodGpuUses(profile, key.namespace_name, key.pod, fallback))
        out.uses.push_back(std::move(use));
      if (keep_answer_times) out.answer_times_s[key] = AnswerTimesSeconds(profile);
    }
  };
  if (options.pod.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(out.query, promql::QueryClusterInBatches(client, options, reduce));
  } else {
    KRAKEN_ASSIGN_OR_RETURN(out.query, promql::QueryCluster(client, options));
    reduce(out.query.pods);
  }
  out.report = pooling::FindPoolingCandidates(out.uses, pooling_options);
  return out;
}

Result<std::string> RenderClusterAnalysis(const ClusterAnalyzeSettings& settings, bool json) {
  KRAKEN_ASSIGN_OR_RETURN(promql::ClusterQueryOptions options, MakeQueryOptions(settings));
  pooling::PoolingOptions pooling_options;
  KRAKEN_ASSIGN_OR_RETURN(pooling_options.max_slowdown, SlowdownBudgetFromPct(settings.max_slowdown_pct));
  const DeviceSpec* fallback = nullptr;
  if (!settings.gpu_model.empty()) {
    fallback = FindDeviceSpec(settings.gpu_model);
    if (fallback == nullptr)
      return InvalidInput("--gpu-model '" + settings.gpu_model + "' is not in the catalog (see `kraken devices`)");
  }
  KRAKEN_ASSIGN_OR_RETURN(auto client, promql::PrometheusClient::Create(settings.prometheus, settings.timeout_s));
  KRAKEN_ASSIGN_OR_RETURN(ClusterPooling pooling, AnalyzeClusterPooling(*client, options, fallback, pooling_options));

  ClusterPoolingView view;
  view.prometheus_url = settings.prometheus;
  view.query = pooling.query.query;
  view.namespace_name = settings.namespace_name;
  view.pod = settings.pod;
  view.end_s = pooling.query.end_s;
  view.start_s = pooling.query.end_s - options.range_s;
  view.step_s = pooling.query.plan.step_s;
  view.step_reason = pooling.query.step_reason;
  view.sample_interval_s = pooling.query.sample_interval_s;
  view.windows = static_cast<int64_t>(pooling.query.plan.windows.size());
  view.series_received = pooling.query.series_received;
  view.points_received = pooling.query.points_received;
  view.counters["dcgm_blank_values"] = pooling.query.pods.blank_values;
  view.counters["non_finite_values"] = pooling.query.pods.non_finite_values;
  view.counters["series_without_pod"] = pooling.query.pods.series_without_pod;
  view.explain = settings.explain;
  view.uses = std::move(pooling.uses);
  view.report = std::move(pooling.report);
  return json ? RenderClusterPoolingJson(view) : RenderClusterPoolingText(view);
}

}  // namespace kraken
