// `kraken serve`: runs the REST API (docs/api.md) until interrupted.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/small_file.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "app/colocate_request.h"
#include "cli/commands.h"
#include "cli/serve_runner.h"
#include "cli/store_access.h"
#include "store/store_path.h"
#include "promql/prometheus_client.h"
#include "server/agent_ring_source.h"
#include "server/kraken_server.h"

// The shared data folder this build was configured with (src/cli/CMakeLists.txt).
namespace kraken::build_paths {
extern const char kDefaultReferenceDataDir[];
}  // namespace kraken::build_paths

namespace kraken::cli {
namespace {

// The first of the environment variables that is set and not empty, else nullptr:
// kraken's own name first, then the legacy service's (PROFILER_HOST, PROFILER_PORT), which
// deployments of that service already set.
const char* FirstEnv(const char* kraken_name, const char* legacy_name, const char** which) {
  for (const char* name : {kraken_name, legacy_name}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value) {
      *which = name;
      return value;
    }
  }
  return nullptr;
}

server::KrakenServer* g_running = nullptr;

void StopOnSignal(int) {
  // Stop() only flags and shuts the listening socket down: safe enough in a handler for
  // a process that is about to exit anyway.
  if (g_running != nullptr) g_running->Stop();
}

Result<std::string> ReadToken(const std::string& path) {
  // A bearer token is a line; 64 KiB bounds a mistaken path such as /dev/zero.
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, 64 * kKiB, "the token file"));
  std::string token(Trim(text));
  if (token.empty()) return InvalidInput(path + ": the token file is empty");
  return token;
}

}  // namespace

Result<server::ServeOptions> MakeServeOptions(const ServeArgs& args) {
  server::ServeOptions options;
  const char* host_name = nullptr;
  const char* port_name = nullptr;
  const char* env_host = FirstEnv("KRAKEN_HOST", "PROFILER_HOST", &host_name);
  const char* env_port = FirstEnv("KRAKEN_PORT", "PROFILER_PORT", &port_name);
  options.host = !args.host.empty() ? args.host : (env_host != nullptr ? env_host : "0.0.0.0");
  if (args.port >= 0) {
    options.port = args.port;
  } else if (env_port != nullptr) {
    auto port = ParseInt64(env_port);
    if (!port || *port < 0 || *port > 65535)
      return InvalidInput(std::string(port_name) + " is not a port: " + env_port);
    options.port = static_cast<int>(*port);
  }
  if (options.port < 0 || options.port > 65535) return InvalidInput("--port must be 0..65535");
  options.db_path = ResolveDbPath(args.db);
  if (!args.token_file.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(options.token, ReadToken(args.token_file));
  }
  options.allow_open_writes = args.allow_open_writes;
  KRAKEN_ASSIGN_OR_RETURN(double max_body, ParseByteSize(args.max_body));
  if (max_body < 1 || max_body > 1e12) return InvalidInput("--max-body must be between 1 byte and 1 TB");
  options.max_body_bytes = static_cast<int64_t>(max_body);
  const char* env_data = std::getenv("KRAKEN_DATA_DIR");
  options.reference_data_dir = !args.reference_data.empty() ? args.reference_data
                               : (env_data != nullptr && *env_data) ? env_data
                                                                    : build_paths::kDefaultReferenceDataDir;
  if (args.threads < 2 || args.threads > 1024) return InvalidInput("--threads must be 2..1024");
  options.threads = args.threads;
  options.legacy_profiles = args.legacy_profiles;
  options.legacy_sms = args.legacy_sms;
  options.device = args.device;
  if (!args.agent.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(server::AgentAddress agent, server::ParseAgentUrl(args.agent));
    options.agent_host = agent.host;
    options.agent_port = agent.port;
  }
  if (!args.prometheus.empty()) {
    // Checked at start, so a mistyped URL fails `kraken serve` rather than every request.
    KRAKEN_RETURN_IF_ERROR(promql::ParseServerUrl(args.prometheus).status().WithContext("--prometheus"));
    options.prometheus = args.prometheus;
  }
  options.budget_prometheus = args.budget_prometheus;
  options.budgets_file = args.budgets;
  options.budget_range = args.budget_range;
  options.budget_gpu_model = args.budget_gpu_model;
  options.budget_forecast = args.budget_forecast;
  return options;
}

int RunServer(const server::ServeOptions& options, const std::function<void(const std::string&)>& on_listening) {
  auto server = server::KrakenServer::Create(options);
  if (!server.ok()) return ReportError(server.status());
  auto port = (*server)->Bind();
  if (!port.ok()) return ReportError(port.status());
  std::string shown_host = options.host == "0.0.0.0" ? "127.0.0.1" : options.host;
  on_listening("http://" + shown_host + ":" + std::to_string(*port));
  g_running = server->get();
  std::signal(SIGINT, StopOnSignal);
  std::signal(SIGTERM, StopOnSignal);
  Status status = (*server)->Listen();
  g_running = nullptr;
  if (!status.ok()) return ReportError(status);
  return kExitOk;
}

namespace {

int RunServe(const ServeArgs& args) {
  auto options = MakeServeOptions(args);
  if (!options.ok()) return ReportError(options.status());
  return RunServer(*options, [&options](const std::string& url) {
    std::fprintf(stderr, "kraken serve: listening on %s (store %s)\n", url.c_str(),
                 StoreLocationForDisplay(options->db_path).c_str());
  });
}

}  // namespace

void AddServeCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve the REST API and the dashboard (docs/api.md)");
  cmd->add_option("--host", args->host,
                  "Address to listen on (default: $KRAKEN_HOST, else $PROFILER_HOST, else 0.0.0.0)");
  cmd->add_option("--port", args->port,
                  "Port (default: $KRAKEN_PORT, else $PROFILER_PORT, else 7070; 0 picks a free one)");
  AddDbOption(cmd, &args->db);
  cmd->add_option("--token-file", args->token_file,
                  "File holding a bearer token that every POST must carry; without one, writes to the store "
                  "are refused unless --host is a loopback address or --allow-open-writes is given");
  cmd->add_flag("--allow-open-writes", args->allow_open_writes,
                "Accept store writes without --token-file even when listening on a non-loopback address");
  cmd->add_option("--max-body", args->max_body, "Largest request body, e.g. 256MiB, 1GB")->capture_default_str();
  cmd->add_option("--reference-data", args->reference_data,
                  "Folder of the real measurements the predefined legacy profiles come from (default: "
                  "$KRAKEN_DATA_DIR, else the build's shared/data)");
  cmd->add_option("--threads", args->threads,
                  "Worker threads for complete requests (idle and slow connections hold none; /api/v1/live "
                  "streams, at most a quarter of this, get threads of their own)")
      ->capture_default_str();
  cmd->add_option("--legacy-profiles", args->legacy_profiles,
                  "What the legacy API's predefined ids serve: 'legacy' (the legacy service's table) or "
                  "'measured' (kraken's Orion-derived measurements); docs/compat.md")
      ->capture_default_str();
  cmd->add_option("--legacy-sms", args->legacy_sms,
                  "SMs the legacy /colocation sm_partition divides (default: the SMs of --device, else 84)");
  cmd->add_option("--device", args->device,
                  "GPU (catalog id, see `kraken devices`) the legacy /colocation predicts for; its SMs are split");
  cmd->add_option("--agent", args->agent,
                  "http://HOST:PORT of a running `kraken agent`: the live view streams its in-memory ring "
                  "(samples from its first pass, before any commit) instead of the store's newest live profile");
  cmd->add_option("--prometheus", args->prometheus,
                  "URL of Prometheus (or Thanos, Mimir): GET /api/v1/cluster reads the fleet from its DCGM "
                  "series instead of the store's live profiles, and so does GET /api/v1/live without --agent");
  cmd->add_option("--budget-prometheus", args->budget_prometheus,
                  "Prometheus holding the DCGM history: serves kraken_budget_* at /api/v1/cost/budgets/metrics");
  cmd->add_option("--budgets", args->budgets, "CSV team,monthly_usd for the budget metrics (docs/cost.md)");
  cmd->add_option("--budget-range", args->budget_range, "Range the budget metrics charge")->capture_default_str();
  cmd->add_option("--budget-gpu-model", args->budget_gpu_model, "Catalog id for GPUs whose series carry no modelName");
  cmd->add_option("--budget-forecast", args->budget_forecast,
                  "Also serve kraken_budget_forecast_month_* through the forecaster over this horizon (24h)");
  commands.push_back({cmd, [args] { return RunServe(*args); }});
}

}  // namespace kraken::cli
