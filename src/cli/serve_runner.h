// Running kraken's server until SIGINT/SIGTERM, shared by `kraken serve` and `kraken
// dashboard` (which serves one imported profile on the same server).
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "server/serve_options.h"

namespace kraken::cli {

struct ServeArgs {
  std::string host;  // empty: $KRAKEN_HOST, else $PROFILER_HOST, else 0.0.0.0
  int port = -1;     // -1: $KRAKEN_PORT, else $PROFILER_PORT, else 7070
  std::string db;
  std::string token_file;
  bool allow_open_writes = false;  // store writes without a token on a non-loopback address
  std::string max_body = "256MiB";
  std::string reference_data;
  int threads = 64;
  std::string legacy_profiles = "legacy";  // the legacy API's predefined ids: legacy | measured
  int legacy_sms = 0;                      // 0: the SMs of `device`, else 84
  std::string device;
  std::string agent;  // http://HOST:PORT of a `kraken agent` whose ring the live view streams
  std::string prometheus;         // GET /api/v1/cluster from Prometheus (docs/api.md)
  std::string budget_prometheus;  // GET /api/v1/cost/budgets/metrics (docs/cost.md)
  std::string budgets;
  std::string budget_range = "30d";
  std::string budget_gpu_model;
  std::string budget_forecast;
};

// The flags and environment checked (messages name the flag or variable).
Result<server::ServeOptions> MakeServeOptions(const ServeArgs& args);

// Binds, calls `on_listening` with the base URL ("http://127.0.0.1:7070"), serves until
// a signal stops it; returns the exit code.
int RunServer(const server::ServeOptions& options, const std::function<void(const std::string& url)>& on_listening);

}  // namespace kraken::cli
