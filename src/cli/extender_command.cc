// `kraken extender --listen 0.0.0.0:8888`: serves the kube-scheduler extender verbs
// (POST /filter, /prioritize; GET /healthz) until SIGINT/SIGTERM (docs/kubernetes.md).
#include <cstdio>

#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "k8s/extender_server.h"

namespace kraken::cli {
namespace {

struct ExtenderArgs {
  std::string listen = "0.0.0.0:8888";
  std::string prefix;
};

int RunExtender(const ExtenderArgs& args) {
  size_t colon = args.listen.rfind(':');
  std::optional<int64_t> port =
      colon == std::string::npos ? std::nullopt : ParseInt64(std::string_view(args.listen).substr(colon + 1));
  if (!port || *port < 0 || *port > 65535)
    return ReportError(InvalidInput("--listen expects HOST:PORT, got '" + args.listen + "'"));
  Status status = k8s::ServeExtender(args.listen.substr(0, colon), static_cast<int>(*port), args.prefix, [&] {
    std::fprintf(stderr, "kraken: scheduler extender on %s (POST %s/filter, %s/prioritize)\n", args.listen.c_str(),
                 args.prefix.c_str(), args.prefix.c_str());
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
  commands.push_back({cmd, [args] { return RunExtender(*args); }});
}

}  // namespace kraken::cli
