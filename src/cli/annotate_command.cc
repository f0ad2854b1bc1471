// `kraken annotate --prometheus URL --namespace NS [--every 5m]`: the controller mode. A
// pass runs the cluster analysis of `analyze --prometheus` and writes its results as
// kraken.io/* annotations on the pods, their nodes and their multi-pod jobs, and the GPU
// labels on the nodes, through the API server with the in-cluster service account
// (docs/kubernetes.md). Without --every it is one pass; with it, a pass every interval
// until SIGINT/SIGTERM (k8s/controller/controller_loop.h).
#include <chrono>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <tuple>

#include "analysis/mig/layout_name.h"
#include "analysis/mig/mig_rebalance.h"
#include "analysis/pooling/node_mig_instances.h"
#include "analysis/pooling/pod_pooling.h"
#include "analysis/pooling/share_mps.h"
#include "app/cluster_request.h"
#include "app/mig_demand_history.h"
#include "base/duration.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "k8s/controller/annotation_writer.h"
#include "k8s/controller/controller_loop.h"
#include "k8s/controller/mig_rebalancer.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/controller/node_labels.h"
#include "k8s/controller/profile_run.h"
#include "app/ncu_run_facts.h"
#include "k8s/controller/workload_profile.h"
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
  // MIG rebalancing (k8s/controller/mig_rebalancer.h).
  bool apply_mig = false;
  std::string mig_hold = "30m";
  std::string mig_window = "24h";
  std::string mig_forecast;  // lookahead: propose layouts ahead of a forecast rise; "" off
  bool write_profiles = false;  // GpuWorkloadProfile objects (docs/crd.md)
  // Profiled experiments (k8s/controller/profile_run.h).
  bool profile_runs = false;
  k8s::ProfileRunOptions profile_run;
  // --print-ncu-command -- CMD...: only print the profile Job's argv for CMD.
  bool print_ncu_command = false;
  std::vector<std::string> wrapped_command;
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
  mig::RebalanceOptions mig;
  std::optional<temporal::Horizon> mig_lookahead;  // --mig-forecast
};

// Node -> MIG profile -> instances that node's measured demand asks for.
using MigDemand = std::map<std::string, std::map<std::string, int>>;
// "namespace/pod" -> what the pass measured, for its workload's GpuWorkloadProfile.
using PodFacts = std::map<std::string, k8s::PodProfileFacts>;

k8s::PodProfileFacts FactsOf(const pooling::PodGpuUse& use, const pooling::PodRecommendation& rec) {
  k8s::PodProfileFacts f;
  f.workload_class = use.demand.workload_type.empty() ? "unknown" : use.demand.workload_type;
  if (use.demand.gpu_busy.measured) f.busy_p95 = use.demand.gpu_busy.p95;
  if (use.demand.memory_bytes.measured) f.memory_peak_gib = use.demand.memory_bytes.max / (1024.0 * 1024 * 1024);
  f.recommendation = std::string(pooling::PoolActionName(rec.action)) + (rec.detail.empty() ? "" : ": " + rec.detail);
  if (f.recommendation.size() > 1000) f.recommendation.resize(1000);
  return f;
}

// Reads the DCGM history of each namespace and turns the pooling analysis into one
// PodResult per pod.
Result<std::vector<k8s::PodResult>> AnalyzePods(const AnnotateArgs& args, const PassSetup& setup,
                                                promql::PrometheusClient& client, MigDemand* mig_demand,
                                                NodeMigHistories* mig_histories, PodFacts* facts) {
  std::vector<k8s::PodResult> pods;
  for (const std::string& namespace_name : args.namespaces) {
    promql::ClusterQueryOptions options = setup.options;
    options.namespace_name = namespace_name;
    KRAKEN_ASSIGN_OR_RETURN(ClusterPooling pooling,
                            AnalyzeClusterPooling(client, options, setup.fallback, setup.mig_lookahead.has_value()));
    for (const auto& [node, profiles] : pooling::MigInstancesByNode(pooling.uses, pooling.report))
      for (const auto& [profile, count] : profiles) (*mig_demand)[node][profile] += count;
    if (setup.mig_lookahead) AddMigInstanceHistories(pooling, mig_histories);
    std::map<int, int> mps = pooling::MpsPercentagesOfShareGroups(pooling.uses, pooling.report);
    for (const pooling::PodRecommendation& rec : pooling.report.pods) {
      const pooling::PodGpuUse& use = pooling.uses[rec.use];
      // A pod with several GPUs: the first use speaks for it (the same analysis per GPU).
      bool seen = false;
      for (const k8s::PodResult& p : pods) seen = seen || (p.namespace_name == use.namespace_name && p.pod == use.pod);
      if (seen) continue;
      pods.push_back({use.namespace_name, use.pod, AnnotationsOf(use, rec)});
      (*facts)[use.namespace_name + "/" + use.pod] = FactsOf(use, rec);
      if (auto it = mps.find(rec.use); it != mps.end()) pods.back().annotations.mps_thread_percentage = it->second;
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

// MIG rebalancing of each node with MIG demand (k8s/controller/mig_rebalancer.h); a node
// the API server does not know is skipped. Returns "" or "; MIG: N node(s) held, ...".
Result<std::string> RebalanceMig(const AnnotateArgs& args, const PassSetup& setup, const k8s::KubeClient& client,
                                 const MigDemand& mig_demand, const NodeMigHistories& histories) {
  const int64_t now_s =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::map<std::string, int> counts;
  for (const auto& [node, profiles] : mig_demand) {
    // With --mig-forecast the node's demand is read over time: what its pods hold now, and
    // the per-profile history forecast over the window.
    std::optional<k8s::MigForecastInput> ahead;
    std::string wanted = mig::MigLayoutName(profiles);
    if (auto history = histories.find(node); setup.mig_lookahead && history != histories.end()) {
      ahead.emplace();
      ahead->wanted = mig::LatestInstances(history->second);
      ahead->forecasts = mig::ForecastInstances(history->second, *setup.mig_lookahead, setup.mig.window_s);
      ahead->lookahead_s = setup.mig_lookahead->amount / 1'000'000'000;
      wanted = mig::MigLayoutName(ahead->wanted);
    }
    auto result =
        k8s::RebalanceNodeMig(client, node, wanted, now_s, setup.mig, args.apply_mig, ahead ? &*ahead : nullptr);
    if (!result.ok() && result.status().code() == StatusCode::kNotFound) continue;
    if (!result.ok()) return result.status().WithContext("MIG rebalancing of node " + node);
    ++counts[mig::RebalanceActionName(result->decision.action)];
    if (result->labelled) ++counts["labelled"];
  }
  if (counts.empty()) return std::string();
  std::string text;
  for (const auto& [what, n] : counts) text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  return "; MIG: " + text;
}

std::string NowRfc3339() {
  std::time_t now = std::time(nullptr);
  char updated[32];
  std::strftime(updated, sizeof(updated), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return updated;
}

// One GpuWorkloadProfile per workload of the annotated pods (k8s/controller/
// workload_profile.h). Returns "; profiles: N written, M unchanged".
Result<std::string> WriteProfiles(const k8s::KubeClient& client, const k8s::AnnotationStats& stats,
                                  const PodFacts& facts) {
  std::vector<std::pair<k8s::ObjectRef, std::vector<k8s::PodProfileFacts>>> workloads;
  for (const auto& [pod, workload] : stats.pod_workloads) {
    auto f = facts.find(pod);
    if (f == facts.end()) continue;
    auto it = std::find_if(workloads.begin(), workloads.end(), [&](const auto& w) { return w.first == workload; });
    if (it == workloads.end()) it = workloads.insert(workloads.end(), {workload, {}});
    it->second.push_back(f->second);
  }
  const std::string updated = NowRfc3339();
  int written = 0, unchanged = 0;
  for (const auto& [workload, pods] : workloads) {
    Result<bool> wrote = k8s::UpsertWorkloadProfile(client, k8s::AggregateWorkload(workload, pods), updated);
    if (!wrote.ok()) return wrote.status().WithContext("GpuWorkloadProfile of " + workload.kind + " " + workload.name);
    ++(*wrote ? written : unchanged);
  }
  return "; profiles: " + std::to_string(written) + " written, " + std::to_string(unchanged) + " unchanged";
}

// One pass; `prefix` starts its summary line ("" or "pass 3: ").
Status RunPass(const AnnotateArgs& args, const PassSetup& setup, const std::string& prefix) {
  const auto started = std::chrono::steady_clock::now();
  KRAKEN_ASSIGN_OR_RETURN(auto client, promql::PrometheusClient::Create(args.prometheus));
  MigDemand mig_demand;
  NodeMigHistories mig_histories;
  PodFacts facts;
  KRAKEN_ASSIGN_OR_RETURN(std::vector<k8s::PodResult> pods,
                          AnalyzePods(args, setup, *client, &mig_demand, &mig_histories, &facts));
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
    for (const auto& [node, profiles] : mig_demand)
      std::printf("node/%s mig demand %s\n", node.c_str(), mig::MigLayoutName(profiles).c_str());
    return Status::Ok();
  }
  k8s::KubeClient kube_client(setup.kube);
  k8s::AnnotationWriter writer(kube_client, args.annotation_prefixes);
  k8s::AnnotationStats stats;
  KRAKEN_RETURN_IF_ERROR(writer.AnnotatePass(pods, scope, &stats));
  KRAKEN_ASSIGN_OR_RETURN(std::string mig, RebalanceMig(args, setup, kube_client, mig_demand, mig_histories));
  if (args.write_profiles) {
    KRAKEN_ASSIGN_OR_RETURN(std::string profiles, WriteProfiles(kube_client, stats, facts));
    mig += profiles;
  }
  if (args.profile_runs) {
    k8s::ProfileRunner runner(kube_client, args.profile_run, ImportNcuRunLog);
    k8s::ProfileRunStats runs;
    KRAKEN_RETURN_IF_ERROR(runner.RunPass(args.namespaces, NowRfc3339(), &runs));
    mig += k8s::ProfileRunSummary(runs);
  }
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
      "%d object(s) read, %d patched, %d unchanged%s%s; %.2f s\n",
      prefix.c_str(), stats.pods_annotated, stats.pods_opted_out, gone.c_str(), stats.nodes_labelled,
      stats.nodes_missing, stats.objects_read, stats.objects_patched, stats.objects_unchanged, dropped.c_str(),
      mig.c_str(), seconds);
  std::fflush(stdout);
  return Status::Ok();
}

// The argv a profile Job's container runs for `wrapped_command`, built by the Job
// builder's own NcuCommandPrefix, one word a line: scripts/gpu-validate.sh runs exactly the
// controller's ncu invocation on a real GPU without a cluster.
int PrintNcuCommand(const AnnotateArgs& args) {
  if (args.wrapped_command.empty())
    return ReportError(InvalidInput("--print-ncu-command needs the command to wrap after -- (annotate "
                                    "--print-ncu-command -- CMD ARGS...)"));
  std::vector<std::string> argv = k8s::NcuCommandPrefix(args.profile_run.launch_count);
  argv.insert(argv.end(), args.wrapped_command.begin(), args.wrapped_command.end());
  for (const std::string& word : argv)
    if (word.find_first_of("\n\r") != std::string::npos)
      return ReportError(InvalidInput("--print-ncu-command: a word of the command holds a line break, which one "
                                      "word a line cannot print"));
  for (const std::string& word : argv) std::printf("%s\n", word.c_str());
  return kExitOk;
}

int RunAnnotate(const AnnotateArgs& args) {
  if (args.print_ncu_command) return PrintNcuCommand(args);
  if (!args.wrapped_command.empty())
    return ReportError(InvalidInput("annotate takes no command ('" + args.wrapped_command.front() +
                                    "'), except after --print-ncu-command"));
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
  for (auto [flag, text, target] : {std::tuple{"--mig-hold", &args.mig_hold, &setup.mig.hold_s},
                                    std::tuple{"--mig-window", &args.mig_window, &setup.mig.window_s}}) {
    std::optional<int64_t> ns = ParseDurationNs(*text);
    if (!ns || *ns < 0)
      return ReportError(InvalidInput(std::string(flag) + " '" + *text + "': expected a duration (30m, 24h, 0s)"));
    *target = *ns / 1'000'000'000;
  }
  if (!args.mig_forecast.empty()) {
    setup.mig_lookahead = temporal::ParseHorizon(args.mig_forecast);
    if (!setup.mig_lookahead || setup.mig_lookahead->axis != SampleAxis::kTimeNs)
      return ReportError(InvalidInput("--mig-forecast '" + args.mig_forecast + "': expected a lookahead such as 1h or 90m"));
  }
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
  cmd->add_flag("--apply-mig", args->apply_mig,
                "Write a MIG layout change as the nvidia.com/mig.config node label the mig-manager applies "
                "(default: only the kraken.io/mig-recommendation annotation)");
  cmd->add_option("--mig-hold", args->mig_hold, "How long demand must ask for a new MIG layout before it is proposed")
      ->capture_default_str();
  cmd->add_option("--mig-window", args->mig_window, "At most one MIG layout change per node per this window")
      ->capture_default_str();
  cmd->add_option("--mig-forecast", args->mig_forecast,
                  "Forecast each node's MIG demand over the window and propose the layout before a rise this far "
                  "ahead (1h; docs/mig-rebalancing.md)");
  cmd->add_flag("--write-profiles", args->write_profiles,
                "Also keep one GpuWorkloadProfile (kraken.io/v1alpha1) per workload; needs the CRD of deploy/ "
                "(docs/crd.md)");
  cmd->add_flag("--profile-runs", args->profile_runs,
                "Profiled experiments: re-run each pod or Job annotated kraken.io/profile-run: ncu once as a Job "
                "under Nsight Compute and store its result in the workload's GpuWorkloadProfile (docs/kubernetes.md)");
  cmd->add_option("--ncu-image", args->profile_run.ncu_image,
                  "Image of the profile Jobs (Nsight Compute and the workload's program); a pod's "
                  "kraken.io/profile-image wins");
  cmd->add_option("--ncu-launch-count", args->profile_run.launch_count,
                  "Kernel launches ncu profiles in a profile Job (ncu --launch-count)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--print-ncu-command", args->print_ncu_command,
                "Print the argv a profile Job runs for the command after -- (ncu in front, with "
                "--ncu-launch-count), one word a line, and exit; reads no cluster");
  cmd->add_option("command", args->wrapped_command, "With --print-ncu-command: the command to wrap");
  cmd->add_flag("--no-node-labels", args->no_node_labels,
                "Do not write the kraken.io/gpu-class, gpu-count and mig-layout node labels");
  commands.push_back({cmd, [args] { return RunAnnotate(*args); }});
}

}  // namespace kraken::cli
