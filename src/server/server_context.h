// What the routes share: the options, the store connections, the legacy profiles and the
// caches. Every member is safe to use from several request threads at once.
#pragma once

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "server/legacy_profiles.h"
#include "server/profile_facts.h"
#include "server/report_cache.h"
#include "server/serve_options.h"
#include "server/store_pool.h"
#include "server/timeline_cache.h"

namespace kraken::server {

// The newest /api/v1/live event read from Prometheus, shared by every open stream for a
// second: N dashboards cost Prometheus one query a second, not N.
struct SharedLiveEvent {
  std::mutex mutex;  // held while one stream queries; the others then reuse its answer
  std::chrono::steady_clock::time_point read_at;
  std::string event;
};

struct ServerContext {
  ServeOptions options;
  std::unique_ptr<StorePool> store;
  std::unique_ptr<LegacyProfiles> legacy;
  ProfileFactsCache facts;
  ReportCache reports;
  TimelineCache timelines;  // the timeline explorer's indexes
  std::atomic<bool> stopping{false};  // ends the /api/v1/live streams
  std::atomic<int> live_streams{0};   // open /api/v1/live streams (LiveStreamBudget)
  SharedLiveEvent prometheus_live;    // with --prometheus and no --agent
};

// Most /api/v1/live streams open at once: a quarter of --threads. The connection front
// enforces it (each stream runs on a thread of its own, outside the worker pool); the
// route checks it again for a stream that slips in between.
inline int LiveStreamBudget(const ServeOptions& options) { return std::max(1, options.threads / 4); }

// Each file registers its routes.
void AddLegacyRoutes(httplib::Server& server, ServerContext& ctx);
void AddProfileRoutes(httplib::Server& server, ServerContext& ctx);
void AddColocateRoutes(httplib::Server& server, ServerContext& ctx);
void AddUploadRoute(httplib::Server& server, ServerContext& ctx);
void AddTemporalRoute(httplib::Server& server, ServerContext& ctx);
void AddDiffRoute(httplib::Server& server, ServerContext& ctx);
void AddTimelineRoute(httplib::Server& server, ServerContext& ctx);
void AddPackRoute(httplib::Server& server);
void AddBudgetRoute(httplib::Server& server, ServerContext& ctx);
void AddLiveRoutes(httplib::Server& server, ServerContext& ctx);
void AddStaticRoutes(httplib::Server& server, ServerContext& ctx);

}  // namespace kraken::server
