// `kraken annotate --prometheus URL --namespace NS [--every 5m]`: the controller mode. A
// pass runs the cluster analysis of `analyze --prometheus` and writes its results as
// kraken.io/* annotations on the pods, their nodes and their multi-pod jobs, and the GPU
// labels on the nodes, through the API server with the in-cluster service account
// (docs/kubernetes.md). Without --every it is one pass; with it, a pass every interval
// until SIGINT/SIGTERM (k8s/controller/controller_loop.h).
#include <chrono>
#include <cstdio>

#include "analysis/pooling/pod_pooling.h"
#include "app/cluster_request.h"
#include "base/duration.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "k8s/controller/annotation_writer.h"
#include "k8s/controller/controller_loop.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/controller/node_labels.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"
#include "promql/node_gpus.h"

namespace kraken::cli {
namespace {

struct AnnotateArgs {
  std::string prometheus;
  std::vector<std::string> namespaces;
  std::string range = "7d";
  std::string gpu_model;
  std::string kube_api;    // out of cluster: http(s)://HOST:PORT (tests, kubectl proxy)
  std::string token_file;  // with --kube-api
  bool dry_run = false;
  std::string every;  // "" = one pass
  bool no_node_labels = false;
  // Also write the results under these prefixes (Alnair's ai.centaurus.io).
  std::vector<std::string> annotation_prefixes;
};

// What the pooling analysis says about a pod, as annotations. Bound and disagg score
// need a trace, not DCGM samples, and stay unset here.
k8s::WorkloadAnnotations AnnotationsOf(const pooling::PodGpuUse& use, const pooling::PodRecommendation& rec) {
  k8s::WorkloadAnnotations a;
  if (!use.demand.workload_type.empty()) a.workload_type = use.demand.workload_type;
  if (use.demand.gpu_busy.measured) a.gpu_util_p95 = use.demand.gpu_busy.p95;
  // The demand vector for the scheduler extender's co-location model (k8s/client/demand_annotation.h).
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

// What a pass needs that does not change between passes.
struct PassSetup {
  promql::ClusterQueryOptions options;  // namespace_name set per namespace
  const DeviceSpec* fallback = nullptr;
  k8s::KubeConfig kube;
};

// Reads the DCGM history of each namespace and turns the pooling analysis into one
// PodResult per pod.
Result<std::vector<k8s::PodResult>> AnalyzePods(const AnnotateArgs& args, const PassSetup& setup,
                                                promql::PrometheusClient& client) {
  std::vector<k8s::PodResult> pods;
  for (const std::string& namespace_name : args.namespaces) {
    promql::ClusterQueryOptions options = setup.options;
    options.namespace_name = namespace_name;
    KRAKEN_ASSIGN_OR_RETURN(ClusterPooling pooling, AnalyzeClusterPooling(client, options, setup.fallback));
    for (const pooling::PodRecommendation& rec : pooling.report.pods) {
      const pooling::PodGpuUse& use = pooling.uses[rec.use];
      // A pod with several GPUs: the first use speaks for it (the same analysis per GPU).
      bool seen = false;
      for (const k8s::PodResult& p : pods) seen = seen || (p.namespace_name == use.namespace_name && p.pod == use.pod);
      if (!seen) pods.push_back({use.namespace_name, use.pod, AnnotationsOf(use, rec)});
    }
  }
  return pods;
}

// Every node's GPUs from its DCGM series: the nodes a pass touches for the resident
// lists, and the kraken.io/gpu-class, gpu-count, mig-layout labels.
Result<std::map<std::string, promql::NodeGpus>> NodeInventory(const PassSetup& setup, promql::PrometheusClient& client) {
  KRAKEN_ASSIGN_OR_RETURN(promql::NodeGpuQueryResult result,
                          promql::QueryNodeGpus(client, setup.options, setup.fallback));
  return std::move(result.nodes);
}

void PrintMap(const std::string& name, const std::map<std::string, std::string>& values) {
  std::printf("%s", name.c_str());
  for (const auto& [k, v] : values) std::printf(" %s=%s", k.c_str(), v.c_str());
  std::printf("\n");
}

// One pass; `prefix` starts its summary line ("" or "pass 3: ").
Status RunPass(const AnnotateArgs& args, const PassSetup& setup, const std::string& prefix) {
  const auto started = std::chrono::steady_clock::now();
  KRAKEN_ASSIGN_OR_RETURN(auto client, promql::PrometheusClient::Create(args.prometheus));
  KRAKEN_ASSIGN_OR_RETURN(std::vector<k8s::PodResult> pods, AnalyzePods(args, setup, *client));
  // The inventory is read even with --no-node-labels: its nodes are the ones whose
  // resident lists this pass keeps true (a node whose GPU pods all left gets `none`).
  KRAKEN_ASSIGN_OR_RETURN(auto inventory, NodeInventory(setup, *client));
  k8s::PassScope scope;
  scope.namespaces.insert(args.namespaces.begin(), args.namespaces.end());
  for (const auto& [node, gpus] : inventory) {
    scope.inventory_nodes.insert(node);
    if (!args.no_node_labels)
      scope.node_labels[node] = k8s::NodeGpuLabels(gpus.gpu_class, gpus.gpu_count, gpus.mig_profiles);
  }
  if (args.dry_run) {
    for (const k8s::PodResult& p : pods)
      PrintMap(p.namespace_name + "/" + p.pod,
               k8s::WithPrefixes(k8s::ToAnnotations(p.annotations), args.annotation_prefixes));
    for (const auto& [node, labels] : scope.node_labels) PrintMap("node/" + node, labels);
    return Status::Ok();
  }
  k8s::KubeClient kube_client(setup.kube);
  k8s::AnnotationWriter writer(kube_client, args.annotation_prefixes);
  k8s::AnnotationStats stats;
  KRAKEN_RETURN_IF_ERROR(writer.AnnotatePass(pods, scope, &stats));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Pods gone from the cluster and dropped resident entries are named only when there are
  // some, so a steady cluster's line stays short.
  std::string gone, dropped;
  if (stats.pods_missing > 0) gone = ", " + std::to_string(stats.pods_missing) + " gone (404)";
  if (stats.resident_entries_stale + stats.resident_entries_unparsable + stats.resident_entries_over_cap > 0)
    dropped = "; resident entries dropped: " + std::to_string(stats.resident_entries_stale) + " stale, " +
              std::to_string(stats.resident_entries_unparsable) + " unparsable, " +
              std::to_string(stats.resident_entries_over_cap) + " over the cap";
  std::printf(
      "%sannotated %d pod(s), %d opted out (kraken.io/profiling: disabled)%s; labelled %d node(s), %d not found; "
      "%d object(s) read, %d patched, %d unchanged%s; %.2f s\n",
      prefix.c_str(), stats.pods_annotated, stats.pods_opted_out, gone.c_str(), stats.nodes_labelled,
      stats.nodes_missing, stats.objects_read, stats.objects_patched, stats.objects_unchanged, dropped.c_str(),
      seconds);
  std::fflush(stdout);
  return Status::Ok();
}

int RunAnnotate(const AnnotateArgs& args) {
  if (args.prometheus.empty() || args.namespaces.empty())
    return ReportError(InvalidInput("annotate needs --prometheus URL and --namespace NS"));
  for (const std::string& prefix : args.annotation_prefixes)
    if (!k8s::IsAnnotationPrefix(prefix))
      return ReportError(InvalidInput("--annotation-prefix '" + prefix +
                                      "' is not a DNS subdomain such as ai.centaurus.io (lowercase letters, digits, "
                                      "'-' and '.')"));
  PassSetup setup;
  auto range = promql::ParsePromDurationSeconds(args.range);
  if (!range.ok()) return ReportError(range.status().WithContext("--range"));
  setup.options.range_s = *range;
  // Names are checked before the first pass, so a typo is an exit-2 error, not a loop of
  // failed passes.
  for (const std::string& ns : args.namespaces)
    if (auto query = promql::BuildDcgmQuery(ns, ""); !query.ok()) return ReportError(query.status());
  setup.fallback = args.gpu_model.empty() ? nullptr : FindDeviceSpec(args.gpu_model);
  if (!args.gpu_model.empty() && setup.fallback == nullptr)
    return ReportError(InvalidInput("--gpu-model '" + args.gpu_model + "' is not in the catalog"));
  std::optional<int64_t> every_ns;
  if (!args.every.empty()) {
    every_ns = ParseDurationNs(args.every);
    if (!every_ns || *every_ns < 1'000'000'000)
      return ReportError(InvalidInput("--every '" + args.every + "': expected a duration of at least 1s (5m, 1h)"));
  }
  if (auto client = promql::PrometheusClient::Create(args.prometheus); !client.ok())
    return ReportError(client.status());
  if (!args.dry_run) {
    auto kube = k8s::KubeConfigFromFlags(args.kube_api, args.token_file);
    if (!kube.ok()) return ReportError(kube.status());
    setup.kube = *kube;
  }
  if (!every_ns) {
    Status status = RunPass(args, setup, "");
    return status.ok() ? kExitOk : ReportError(status);
  }
  const std::atomic<bool>& stop = k8s::InstallStopSignalHandlers();
  k8s::ControllerLoopOptions loop;
  loop.every = std::chrono::milliseconds(*every_ns / 1'000'000);
  k8s::RunControllerLoop([&](int64_t pass) { return RunPass(args, setup, "pass " + std::to_string(pass) + ": "); },
                         [](int64_t pass, const Status& status) {
                           // One line per failed pass; the next pass retries.
                           std::string message = status.message();
                           for (char& c : message)
                             if (c == '\n' || c == '\r') c = ' ';
                           std::fprintf(stderr, "kraken: annotate pass %lld failed: %s\n", static_cast<long long>(pass),
                                        message.c_str());
                           std::fflush(stderr);
                         },
                         stop, loop);
  return kExitOk;
}

}  // namespace

void AddAnnotateCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<AnnotateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "annotate", "Analyze a namespace's DCGM history and write kraken.io/* annotations on its pods, nodes and jobs");
  cmd->add_option("--prometheus", args->prometheus, "Prometheus holding the DCGM series (http(s)://HOST:PORT)");
  cmd->add_option("--namespace", args->namespaces,
                  "Kubernetes namespace(s) whose pods to analyze and annotate (repeat or comma-separate)")
      ->delimiter(',');
  cmd->add_option("--range", args->range, "How far back to read (Prometheus duration)")->capture_default_str();
  cmd->add_option("--gpu-model", args->gpu_model, "Catalog id of GPUs whose series have no modelName label");
  cmd->add_option("--kube-api", args->kube_api,
                  "API server URL when not running in a pod (default: the in-cluster service account)");
  cmd->add_option("--token-file", args->token_file, "With --kube-api: file holding the bearer token");
  cmd->add_flag("--dry-run", args->dry_run, "Print the annotations and node labels instead of writing them");
  cmd->add_option("--every", args->every,
                  "Controller mode: a pass every interval (5m, 1h) until SIGINT/SIGTERM; failed passes are "
                  "logged and retried (default: one pass, exit 2 on error)");
  cmd->add_option("--annotation-prefix", args->annotation_prefixes,
                  "Also write the results under this prefix, e.g. ai.centaurus.io (Alnair's keys: "
                  "ai.centaurus.io/workload-type, ...); kraken.io/* are always written (repeat or comma-separate)")
      ->delimiter(',');
  cmd->add_flag("--no-node-labels", args->no_node_labels,
                "Do not write the kraken.io/gpu-class, gpu-count and mig-layout node labels");
  commands.push_back({cmd, [args] { return RunAnnotate(*args); }});
}

}  // namespace kraken::cli
