// One pass of `kraken annotate` (annotate_pass.h): reads the DCGM history, runs the pooling
// analysis and writes its results through the API server (docs/kubernetes.md).
#include "cli/annotate_pass.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>

#include "analysis/mig/layout_name.h"
#include "analysis/pooling/node_mig_instances.h"
#include "analysis/pooling/pod_pooling.h"
#include "analysis/pooling/share_mps.h"
#include "app/cluster_request.h"
#include "app/mig_demand_history.h"
#include "app/ncu_run_facts.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/controller/annotation_writer.h"
#include "k8s/controller/mig_rebalancer.h"
#include "k8s/controller/node_labels.h"
#include "k8s/controller/profile_run.h"
#include "k8s/controller/workload_profile.h"
#include "promql/node_gpus.h"

namespace kraken::cli::annotate {
namespace {

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
                            AnalyzeClusterPooling(client, options, setup.fallback, setup.pooling,
                                                  setup.mig_lookahead.has_value()));
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
  for (const auto& pod_workload : stats.pod_workloads) {
    // Named, not a structured binding: clang before 16 cannot capture one in a lambda.
    const k8s::ObjectRef& workload = pod_workload.second;
    auto f = facts.find(pod_workload.first);
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

}  // namespace

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

}  // namespace kraken::cli::annotate
