// The live view's source when `kraken serve --agent URL` is given: the agent's in-memory
// ring (GET URL/api/v1/ring), not the store, so the dashboard shows samples from the
// agent's first pass on instead of after its first commit (5 minutes by default).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace kraken::server {

struct AgentAddress {
  std::string host;
  int port = 0;
  std::string url() const { return "http://" + host + ":" + std::to_string(port); }
};

// "http://HOST:PORT" (what `kraken agent --listen` prints); anything else is refused.
Result<AgentAddress> ParseAgentUrl(const std::string& url);

// One "samples" event from the agent's newest pass after `*since_ns` (advanced to it):
// {"profile_id": null, "source": "agent", "agent", "committed_profiles", "time_ns",
// "samples": [{"gpu_index", "gpu_instance_id", "metric", "value", "time_ns"}]}, or with
// "error" and no samples when the agent does not answer within a second.
std::string AgentRingEvent(const AgentAddress& agent, int64_t* since_ns);

}  // namespace kraken::server
