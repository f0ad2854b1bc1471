// `kraken annotate --prometheus URL --namespace NS [--every 5m]`: the controller mode. A
// pass runs the cluster analysis of `analyze --prometheus` and writes its results as
// kraken.io/* annotations on the pods, their nodes and their multi-pod jobs, and the GPU
// labels on the nodes, through the API server with the in-cluster service account
// (docs/kubernetes.md). Without --every it is one pass; with it, a pass every interval
// until SIGINT/SIGTERM (k8s/controller/controller_loop.h).
//
// The pass itself is in annotate_pass.cc; this file holds the flags and their checks.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <tuple>

#include "app/slowdown_budget.h"
#include "base/duration.h"
#include "cli/annotate_pass.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "k8s/client/annotations.h"
#include "k8s/controller/controller_loop.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"
#include "promql/prometheus_client.h"
#include "promql/query_plan.h"

namespace kraken::cli {
namespace {

using annotate::AnnotateArgs;
using annotate::PassSetup;
using annotate::RunPass;

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
  auto budget = SlowdownBudgetFromPct(args.max_slowdown_pct);
  if (!budget.ok()) return ReportError(budget.status());
  setup.pooling.max_slowdown = *budget;
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
  cmd->add_option("--max-slowdown", args->max_slowdown_pct,
                  "Expected slowdown in % a recommended MIG slice may cost (0-1000), for the pods' advice and the "
                  "MIG layouts it asks for; a pod no slice below the whole GPU keeps within it is not sliced")
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
