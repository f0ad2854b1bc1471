#include "cli/cluster_analyze.h"

#include <cstdio>

#include "analysis/pooling/pod_pooling.h"
#include "cli/cli_common.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"
#include "report/pooling_output.h"

namespace kraken::cli {

int RunClusterAnalyze(const ClusterAnalyzeArgs& args) {
  if (args.namespace_name.empty()) return ReportError(InvalidInput("--prometheus needs --namespace NS"));
  promql::ClusterQueryOptions options;
  options.namespace_name = args.namespace_name;
  options.pod = args.pod;
  options.end_s = args.end_s;
  auto range = promql::ParsePromDurationSeconds(args.range);
  if (!range.ok()) return ReportError(range.status().WithContext("--range"));
  options.range_s = *range;
  if (args.step != "auto") {
    auto step = promql::ParsePromDurationSeconds(args.step);
    if (!step.ok()) return ReportError(step.status().WithContext("--step"));
    options.step_s = *step;
  }
  const DeviceSpec* fallback = nullptr;
  if (!args.gpu_model.empty()) {
    fallback = FindDeviceSpec(args.gpu_model);
    if (fallback == nullptr)
      return ReportError(
          InvalidInput("--gpu-model '" + args.gpu_model + "' is not in the catalog (see `kraken devices`)"));
  }
  auto client = promql::PrometheusClient::Create(args.prometheus, args.timeout_s);
  if (!client.ok()) return ReportError(client.status());
  auto result = promql::QueryCluster(**client, options);
  if (!result.ok()) return ReportError(result.status());

  ClusterPoolingView view;
  view.prometheus_url = args.prometheus;
  view.query = result->query;
  view.namespace_name = args.namespace_name;
  view.pod = args.pod;
  view.end_s = result->end_s;
  view.start_s = result->end_s - options.range_s;
  view.step_s = result->plan.step_s;
  view.windows = static_cast<int64_t>(result->plan.windows.size());
  view.series_received = result->series_received;
  view.points_received = result->points_received;
  view.counters["dcgm_blank_values"] = result->pods.blank_values;
  view.counters["non_finite_values"] = result->pods.non_finite_values;
  view.counters["series_without_pod"] = result->pods.series_without_pod;
  view.explain = args.explain;
  for (auto& [key, profile] : result->pods.by_pod) {
    for (pooling::PodGpuUse& use : pooling::PodGpuUses(profile, key.namespace_name, key.pod, fallback))
      view.uses.push_back(std::move(use));
  }
  view.report = pooling::FindPoolingCandidates(view.uses);
  std::string text = args.json ? RenderClusterPoolingJson(view) : RenderClusterPoolingText(view);
  Status status = WriteOutput(args.output, text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace kraken::cli
