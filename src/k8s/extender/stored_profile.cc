#include "k8s/extender/stored_profile.h"

#include <simdjson.h>

#include <map>
#include <mutex>

#include "base/text_table.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/controller/workload_profile.h"

namespace kraken::k8s {
namespace {

// Entries the lookup keeps before it starts over (a cluster has far fewer workloads).
constexpr size_t kMaxCachedProfiles = 10000;

std::string Describe(const StoredNcuProfile& p) {
  return "GpuWorkloadProfile " + p.profile + " (ncu run " + p.job + ", " + std::to_string(p.kernels) + " kernels)";
}

}  // namespace

Result<std::optional<StoredNcuProfile>> ParseStoredNcuProfile(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc, ncu;
  if (auto e = parser.parse(json.data(), json.size()).get(doc); e)
    return InvalidInput(std::string("GpuWorkloadProfile: ") + simdjson::error_message(e));
  if (doc["status"]["ncu"].get(ncu)) return std::optional<StoredNcuProfile>();
  StoredNcuProfile p;
  std::string_view text;
  if (!doc["metadata"]["name"].get(text)) p.profile = std::string(text);
  if (!ncu["job"].get(text)) p.job = std::string(text);
  if (!ncu["bound"].get(text)) p.bound = std::string(text);
  int64_t kernels = 0;
  if (!ncu["kernels"].get(kernels)) p.kernels = kernels;
  double share = 0;
  if (!ncu["computeBoundShare"].get(share)) p.compute_bound_share = share;
  if (!ncu["memoryBoundShare"].get(share)) p.memory_bound_share = share;
  return std::optional<StoredNcuProfile>(std::move(p));
}

WorkloadProfileLookup ApiWorkloadProfileLookup(std::shared_ptr<const KubeClient> client, std::chrono::seconds ttl) {
  struct Cache {
    std::mutex mutex;
    std::map<std::string, std::pair<std::chrono::steady_clock::time_point, std::optional<StoredNcuProfile>>> entries;
  };
  auto cache = std::make_shared<Cache>();
  return [client, ttl, cache](const ObjectRef& workload) -> std::optional<StoredNcuProfile> {
    const std::string path = WorkloadProfilePath(workload);
    const auto now = std::chrono::steady_clock::now();
    {
      std::lock_guard<std::mutex> lock(cache->mutex);
      auto it = cache->entries.find(path);
      if (it != cache->entries.end() && now - it->second.first < ttl) return it->second.second;
    }
    Result<std::string> body = client->Get(path);
    std::optional<StoredNcuProfile> profile;
    if (body.ok()) {
      auto parsed = ParseStoredNcuProfile(*body);
      if (!parsed.ok()) return std::nullopt;
      profile = *parsed;
    } else if (body.status().code() != StatusCode::kNotFound) {
      return std::nullopt;
    }
    std::lock_guard<std::mutex> lock(cache->mutex);
    if (cache->entries.size() >= kMaxCachedProfiles) cache->entries.clear();
    cache->entries[path] = {now, profile};
    return profile;
  };
}

void ApplyStoredProfile(const std::optional<StoredNcuProfile>& profile, ExtenderRequest* request) {
  request->stored_profile_note.clear();
  if (!profile) return;
  const StoredNcuProfile& p = *profile;
  GpuProfileHint& pod = request->pod;
  std::string why;
  std::optional<DemandEntry> demand = pod.demand ? ParseDemandEntry(*pod.demand, &why) : std::nullopt;
  const bool has_mix = p.compute_bound_share + p.memory_bound_share > 0;
  if (demand && has_mix) {
    const WorkloadDemand& d = demand->demand;
    if (d.compute_bound_share + d.memory_bound_share + d.latency_bound_share > 0) {
      request->stored_profile_note = Describe(p) + " not used: the pod's kraken.io/demand has its own kernel bound mix";
      return;
    }
    const std::string mix =
        "cb=" + FormatFixed(p.compute_bound_share, 3) + ";mb=" + FormatFixed(p.memory_bound_share, 3);
    pod.demand = *pod.demand + ";" + mix;
    request->stored_profile_note = "kernel bound mix " + mix + " from " + Describe(p);
    return;
  }
  if (!p.bound.empty() && pod.bound.empty()) {
    pod.bound = p.bound;
    request->stored_profile_note = "bound " + p.bound + " from " + Describe(p);
    return;
  }
  request->stored_profile_note = Describe(p) + " not used: " +
                                 (p.bound.empty() && !has_mix ? "its kernels were not classified"
                                                              : "the pod's own annotations say more");
}

}  // namespace kraken::k8s
