// What `kraken pack`, the server's POST /api/v1/pack and the C API's kraken_pack share: the settings a request may
// give, their validation, and the one path from node and pod lists to the text or JSON
// document, so that the CLI and the server write the same bytes for the same cluster.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/cluster.h"

namespace kraken {

struct PackSettings {
  std::string policy = "all";         // a policy name, a comma list or "all"
  std::string seeds = "42-51";        // "FIRST-LAST", "1,5,9" or a mix
  double tune = 1.3;                  // submit pods until their GPU request is this multiple of capacity
  double threshold = 95;              // typical pods cover this % of the pod list
  int threads = 2;                    // experiments run in parallel
  bool explain = false;               // explain single placements of the first seed instead of the sweep
  std::vector<int64_t> explain_pods;  // arrival positions to explain (implies explain)
  size_t explain_top = 5;             // candidate nodes listed per explained pod
};

// The settings checked and expanded (messages name the CLI flags, which the server's
// request fields mirror).
struct PackPlan {
  std::vector<uint64_t> seeds;
  std::vector<std::string> policies;  // canonical names
};
Result<PackPlan> MakePackPlan(const PackSettings& settings);

// The cluster: the loaded lists and the names they are shown under (file paths for the
// CLI), which appear in the document and in error messages.
struct PackCluster {
  std::vector<ClusterNode> nodes;
  std::vector<PodRequest> pods;
  std::string nodes_name;
  std::string pods_name;
};

// Reads both openb lists; `node_counters` and `pod_counters` receive the rows the loader
// skipped or repaired (the CLI prints them on standard error).
struct LoadedPackCluster {
  PackCluster cluster;
  std::map<std::string, int64_t> node_counters;
  std::map<std::string, int64_t> pod_counters;
};
Result<LoadedPackCluster> LoadPackCluster(const std::string& nodes_path, const std::string& pods_path);

// Runs the sweep (or the explanation when settings.explain or explain_pods) and renders it.
Result<std::string> RenderPack(PackCluster cluster, const PackSettings& settings, const PackPlan& plan, bool json);

}  // namespace kraken
