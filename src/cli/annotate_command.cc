// `kraken annotate --prometheus URL --namespace NS`: the controller mode's one pass. Runs
// the cluster analysis of `analyze --prometheus` and writes its results as kraken.io/*
// annotations on the pods, their nodes and their multi-pod jobs, through the API server
// with the in-cluster service account (docs/kubernetes.md).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "analysis/pooling/pod_pooling.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "k8s/annotation_writer.h"
#include "k8s/demand_annotation.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"

namespace kraken::cli {
namespace {

struct AnnotateArgs {
  std::string prometheus;
  std::string namespace_name;
  std::string range = "7d";
  std::string gpu_model;
  std::string kube_api;    // out of cluster: http(s)://HOST:PORT (tests, kubectl proxy)
  std::string token_file;  // with --kube-api
  bool dry_run = false;
};

// What the pooling analysis says about a pod, as annotations. Bound and disagg score
// need a trace, not DCGM samples, and stay unset here.
k8s::WorkloadAnnotations AnnotationsOf(const pooling::PodGpuUse& use, const pooling::PodRecommendation& rec) {
  k8s::WorkloadAnnotations a;
  if (!use.demand.workload_type.empty()) a.workload_type = use.demand.workload_type;
  if (use.demand.gpu_busy.measured) a.gpu_util_p95 = use.demand.gpu_busy.p95;
  // The demand vector for the scheduler extender's co-location model (k8s/demand_annotation.h).
  if (std::string demand = k8s::FormatDemandAnnotation(use.demand); !demand.empty()) a.demand = demand;
  if (use.demand.gpu_index >= 0) a.gpu_index = use.demand.gpu_index;
  switch (rec.action) {
    case pooling::PoolAction::kReclaim:
    case pooling::PoolAction::kShare:
      a.colocation_class = "share";
      break;
    case pooling::PoolAction::kMigSlice:
      a.colocation_class = "mig";
      break;
    case pooling::PoolAction::kKeep:
      a.colocation_class = use.mig_profile.empty() ? "dedicated" : "mig";
      break;
    case pooling::PoolAction::kUnknown:
      break;
  }
  return a;
}

Result<k8s::KubeConfig> KubeConfigOf(const AnnotateArgs& args) {
  if (args.kube_api.empty()) return k8s::LoadInClusterConfig();
  k8s::KubeConfig config;
  std::string_view url = args.kube_api;
  config.scheme = StartsWith(url, "https://") ? "https" : "http";
  url.remove_prefix(config.scheme.size() + 3);
  size_t colon = url.rfind(':');
  std::optional<int64_t> port = colon == std::string_view::npos ? std::nullopt : ParseInt64(url.substr(colon + 1));
  if (!StartsWith(args.kube_api, "http") || !port)
    return InvalidInput("--kube-api expects http(s)://HOST:PORT, got '" + args.kube_api + "'");
  config.host = std::string(url.substr(0, colon));
  config.port = static_cast<int>(*port);
  if (!args.token_file.empty()) {
    std::ifstream in(args.token_file);
    if (!in) return NotFound("--token-file " + args.token_file + ": cannot read");
    std::ostringstream text;
    text << in.rdbuf();
    config.token = std::string(Trim(text.str()));
  }
  return config;
}

int RunAnnotate(const AnnotateArgs& args) {
  if (args.prometheus.empty() || args.namespace_name.empty())
    return ReportError(InvalidInput("annotate needs --prometheus URL and --namespace NS"));
  promql::ClusterQueryOptions options;
  options.namespace_name = args.namespace_name;
  auto range = promql::ParsePromDurationSeconds(args.range);
  if (!range.ok()) return ReportError(range.status().WithContext("--range"));
  options.range_s = *range;
  const DeviceSpec* fallback = args.gpu_model.empty() ? nullptr : FindDeviceSpec(args.gpu_model);
  if (!args.gpu_model.empty() && fallback == nullptr)
    return ReportError(InvalidInput("--gpu-model '" + args.gpu_model + "' is not in the catalog"));
  auto kube = KubeConfigOf(args);
  if (!kube.ok()) return ReportError(kube.status());
  auto client = promql::PrometheusClient::Create(args.prometheus);
  if (!client.ok()) return ReportError(client.status());
  auto result = promql::QueryCluster(**client, options);
  if (!result.ok()) return ReportError(result.status());
  std::vector<pooling::PodGpuUse> uses;
  for (auto& [key, profile] : result->pods.by_pod)
    for (pooling::PodGpuUse& use : pooling::PodGpuUses(profile, key.namespace_name, key.pod, fallback))
      uses.push_back(std::move(use));
  pooling::PoolingReport report = pooling::FindPoolingCandidates(uses);
  std::vector<k8s::PodResult> pods;
  for (const pooling::PodRecommendation& rec : report.pods) {
    const pooling::PodGpuUse& use = uses[rec.use];
    // A pod with several GPUs: the first use speaks for it (the same analysis per GPU).
    bool seen = false;
    for (const k8s::PodResult& p : pods) seen = seen || (p.namespace_name == use.namespace_name && p.pod == use.pod);
    if (!seen) pods.push_back({use.namespace_name, use.pod, AnnotationsOf(use, rec)});
  }
  if (args.dry_run) {
    for (const k8s::PodResult& p : pods) {
      std::printf("%s/%s", p.namespace_name.c_str(), p.pod.c_str());
      for (const auto& [k, v] : k8s::ToAnnotations(p.annotations)) std::printf(" %s=%s", k.c_str(), v.c_str());
      std::printf("\n");
    }
    return kExitOk;
  }
  k8s::KubeClient kube_client(*kube);
  k8s::AnnotationWriter writer(kube_client);
  k8s::AnnotationStats stats;
  Status status = writer.AnnotatePods(pods, &stats);
  if (!status.ok()) return ReportError(status);
  std::printf("annotated %zu pod(s): %d object(s) read, %d patched, %d unchanged\n", pods.size(), stats.objects_read,
              stats.objects_patched, stats.objects_unchanged);
  return kExitOk;
}

}  // namespace

void AddAnnotateCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<AnnotateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "annotate", "Analyze a namespace's DCGM history and write kraken.io/* annotations on its pods, nodes and jobs");
  cmd->add_option("--prometheus", args->prometheus, "Prometheus holding the DCGM series (http(s)://HOST:PORT)");
  cmd->add_option("--namespace", args->namespace_name, "Kubernetes namespace whose pods to analyze and annotate");
  cmd->add_option("--range", args->range, "How far back to read (Prometheus duration)")->capture_default_str();
  cmd->add_option("--gpu-model", args->gpu_model, "Catalog id of GPUs whose series have no modelName label");
  cmd->add_option("--kube-api", args->kube_api,
                  "API server URL when not running in a pod (default: the in-cluster service account)");
  cmd->add_option("--token-file", args->token_file, "With --kube-api: file holding the bearer token");
  cmd->add_flag("--dry-run", args->dry_run, "Print the annotations instead of writing them");
  commands.push_back({cmd, [args] { return RunAnnotate(*args); }});
}

}  // namespace kraken::cli
