// What `kraken serve` is told: where to listen, the store, the write token and limits.
#pragma once

#include <cstdint>
#include <string>

namespace kraken::server {

struct ServeOptions {
  std::string host = "0.0.0.0";
  int port = 7070;  // 0: any free port (tests)
  std::string db_path;  // the profile store (docs/store.md); created when missing
  // Bearer token every POST must carry; empty: none (then store writes are refused on a
  // non-loopback host unless allow_open_writes).
  std::string token;
  bool allow_open_writes = false;
  int64_t max_body_bytes = int64_t{256} << 20;
  // Folder of the shared real measurements the predefined legacy profiles come from
  // (orion/*.csv); empty or missing files: those profiles say they are not measured.
  std::string reference_data_dir;
  // The legacy :7070 API (docs/api.md): "legacy" serves the legacy service's predefined
  // table, "measured" kraken's measurements of those models. sm_partition divides
  // legacy_sms SMs (0: the SMs of `device`, else 84); `device` (a catalog id, "" none) is
  // also the GPU kraken's measured co-location model predicts for.
  std::string legacy_profiles = "legacy";
  int legacy_sms = 0;
  std::string device;
  // Worker threads for complete requests (idle and slow connections hold none); /health
  // has one more of its own, /api/v1/live streams a quarter of this on threads of their own.
  int threads = 64;
  // Deadline of a request head; three times it: of the whole request and of its answer.
  int timeout_s = 10;
  // `--agent http://HOST:PORT`: the live view streams the agent's in-memory ring from there
  // (agent_ring_source.h) instead of the store's newest committed live profile.
  std::string agent_host;  // empty: no agent
  int agent_port = 0;
  // `--prometheus URL`: GET /api/v1/cluster reads the DCGM series there
  // (app/cluster_prometheus.h) instead of the store's live profiles, and so does
  // GET /api/v1/live unless --agent is given (app/live_prometheus.h).
  std::string prometheus;
  // GET /api/v1/cost/budgets/metrics (docs/cost.md): the chargeback's Prometheus, the
  // budgets CSV, the range charged and the GPU model of series without modelName.
  std::string budget_prometheus;
  std::string budgets_file;
  std::string budget_range = "30d";
  std::string budget_gpu_model;
  std::string budget_forecast;  // "" = no forecast gauges
};

}  // namespace kraken::server
