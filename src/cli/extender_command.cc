// `kraken extender --listen 0.0.0.0:8888`: serves the kube-scheduler extender verbs
// (POST /filter, /prioritize; GET /healthz) until SIGINT/SIGTERM (docs/kubernetes.md).
#include <chrono>
#include <cstdio>
#include <memory>

#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "k8s/extender/extender_server.h"

namespace kraken::cli {
namespace {

struct ExtenderArgs {
  std::string listen = "0.0.0.0:8888";
  std::string prefix;
  k8s::ExtenderOptions decide;
  bool log_decisions = false;
  // Stored GpuWorkloadProfiles (profiled experiments, k8s/extender/stored_profile.h).
  bool workload_profiles = false;
  std::string kube_api;    // out of cluster: http(s)://HOST:PORT
  std::string token_file;  // with --kube-api
};

int RunExtender(const ExtenderArgs& args) {
  size_t colon = args.listen.rfind(':');
  std::optional<int64_t> port =
      colon == std::string::npos ? std::nullopt : ParseInt64(std::string_view(args.listen).substr(colon + 1));
  if (!port || *port < 0 || *port > 65535)
    return ReportError(InvalidInput("--listen expects HOST:PORT, got '" + args.listen + "'"));
  if (!(args.decide.max_slowdown > 1))
    return ReportError(InvalidInput("--max-slowdown must be above 1 (1 = no slowdown at all)"));
  if (!EqualsIgnoreCase(args.decide.packing_policy, "BestFit") && !EqualsIgnoreCase(args.decide.packing_policy, "FGD"))
    return ReportError(InvalidInput("--packing-policy expects BestFit or FGD, got '" + args.decide.packing_policy + "'"));
  k8s::ExtenderServerOptions options;
  options.prefix = args.prefix;
  options.decide = args.decide;
  if (args.log_decisions)
    options.log = [](const std::string& verb, const std::string& decisions) {
      std::fprintf(stderr, "kraken extender %s: %s\n", verb.c_str(), decisions.c_str());
    };
  if (args.workload_profiles) {
    auto kube = k8s::KubeConfigFromFlags(args.kube_api, args.token_file);
    if (!kube.ok()) return ReportError(kube.status().WithContext("--workload-profiles"));
    // 2 s per GET: kube-scheduler gives the whole extender call 5 s; a profile not read in
    // time is decided without, never waited for.
    auto client = std::make_shared<const k8s::KubeClient>(*kube, /*timeout_s=*/2);
    options.profiles = k8s::ApiWorkloadProfileLookup(client, std::chrono::seconds(30));
  }
  Status status = k8s::ServeExtender(args.listen.substr(0, colon), static_cast<int>(*port), options, [&] {
    std::fprintf(stderr, "kraken: scheduler extender on %s (POST %s/filter, %s/prioritize; %s/explain for the reasons)\n",
                 args.listen.c_str(), args.prefix.c_str(), args.prefix.c_str(), args.prefix.c_str());
  });
  if (!status.ok()) return ReportError(status);
  return kExitOk;
}

}  // namespace

void AddExtenderCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ExtenderArgs>();
  CLI::App* cmd = app.add_subcommand(
      "extender", "Serve the kube-scheduler extender verbs: filter and rank nodes by predicted GPU interference");
  cmd->add_option("--listen", args->listen, "HOST:PORT to listen on")->capture_default_str();
  cmd->add_option("--prefix", args->prefix,
                  "Path prefix of the verbs (the urlPrefix path part of the scheduler's extender config)");
  cmd->add_option("--max-slowdown", args->decide.max_slowdown,
                  "Refuse a node where the co-location model predicts a slowdown (p99 increase for inference) above "
                  "this for the pod or a resident sharing its GPU; 2 = where sharing stops getting more work done "
                  "than running one after the other")
      ->capture_default_str();
  cmd->add_option("--packing-policy", args->decide.packing_policy,
                  "Packing policy of `kraken pack` for the packing part of the score: BestFit or FGD")
      ->capture_default_str();
  cmd->add_flag("--log-decisions", args->log_decisions,
                "Log every node's decision and reason (JSON, one line per call) to stderr; POST PREFIX/explain "
                "returns the same for one request");
  cmd->add_flag("--workload-profiles", args->workload_profiles,
                "Read the pod's workload's GpuWorkloadProfile (kept 30 s) and use its profiled experiment's "
                "kernel bound mix or bound (docs/k8s-controller.md, \"Profiled experiments\"); needs get on "
                "gpuworkloadprofiles");
  cmd->add_option("--kube-api", args->kube_api,
                  "With --workload-profiles: API server URL when not running in a pod (default: in-cluster)");
  cmd->add_option("--token-file", args->token_file, "With --kube-api: file holding the bearer token");
  commands.push_back({cmd, [args] { return RunExtender(*args); }});
}

}  // namespace kraken::cli
