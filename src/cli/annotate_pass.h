// One pass of `kraken annotate` (annotate_command.cc): the cluster analysis of
// `analyze --prometheus` over the namespaces, written as kraken.io/* annotations, node
// labels, MIG rebalancing, GpuWorkloadProfiles and profiled experiments. Apart from the
// command's flags and checks so that each file is one thing: what a pass does, and how the
// command line asks for passes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/mig/mig_rebalance.h"
#include "analysis/pooling/pod_pooling.h"
#include "analysis/temporal/temporal_analysis.h"
#include "app/slowdown_budget.h"
#include "base/status.h"
#include "k8s/client/in_cluster_config.h"
#include "k8s/controller/profile_run_job.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"

namespace kraken::cli::annotate {

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
  double max_slowdown_pct = kDefaultMaxSlowdownPct;  // expected slowdown (%) a recommended MIG slice may cost
  bool write_profiles = false;  // GpuWorkloadProfile objects (docs/crd.md)
  // Profiled experiments (k8s/controller/profile_run.h).
  bool profile_runs = false;
  k8s::ProfileRunOptions profile_run;
  // --print-ncu-command -- CMD...: only print the profile Job's argv for CMD.
  bool print_ncu_command = false;
  std::vector<std::string> wrapped_command;
};

// What a pass needs that does not change between passes.
struct PassSetup {
  promql::ClusterQueryOptions options;  // namespace_name set per namespace
  const DeviceSpec* fallback = nullptr;
  k8s::KubeConfig kube;
  mig::RebalanceOptions mig;
  pooling::PoolingOptions pooling;  // --max-slowdown
  std::optional<temporal::Horizon> mig_lookahead;  // --mig-forecast
};

// One pass; `prefix` starts its summary line ("" or "pass 3: ").
Status RunPass(const AnnotateArgs& args, const PassSetup& setup, const std::string& prefix);

}  // namespace kraken::cli::annotate
