// kube-scheduler extender protocol v1 (k8s.io/kube-scheduler/extender/v1): the scheduler
// POSTs ExtenderArgs {"pod", "nodes" | "nodenames"} to the filter and prioritize verbs;
// filter answers ExtenderFilterResult {"nodes" | "nodenames", "failedNodes", "error"},
// prioritize a HostPriorityList [{"host", "score"}] with scores 0..100
// (MaxExtenderPriority). Decisions read kraken's annotations: the pending pod's
// predicted profile and each node's aggregate of what already runs there.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kraken::k8s {

inline constexpr int64_t kMaxExtenderPriority = 100;

// What kraken knows of a pod or node from its kraken.io/* annotations.
struct GpuProfileHint {
  std::optional<double> gpu_util_p95;  // kraken.io/gpu-util-p95
  std::string bound;                   // kraken.io/bound: compute, memory, mixed, ...
  std::string colocation_class;        // kraken.io/colocation-class: dedicated, mig, share
};

struct ExtenderNode {
  std::string name;
  GpuProfileHint hint;
  std::string raw_json;  // the Node object as sent (echoed back by filter when "nodes" was used)
};

struct ExtenderRequest {
  std::string pod_namespace;
  std::string pod_name;
  GpuProfileHint pod;
  std::vector<ExtenderNode> nodes;
  bool by_name = false;  // the scheduler sent "nodenames" (nodeCacheCapable: true)
};

Result<ExtenderRequest> ParseExtenderArgs(std::string_view json);

struct NodeDecision {
  std::string node;
  bool fits = true;
  std::string reason;       // why it fails, or how the score was made
  double interference = 0;  // 0 = complementary, 1 = the worst pair (kraken's class table)
  double fill_after = 0;    // node GPU p95 + pod p95
  int64_t score = 0;        // 0..kMaxExtenderPriority
};

// Filter: a node fails when the pod wants its GPU alone (colocation class "dedicated")
// and the node's GPUs are busy (p95 > 5 %), or when the summed p95 of pod and node
// exceeds 100 %. Nodes without kraken annotations pass (no data is no reason to refuse).
// Prioritize: score = 100 x (0.5 x (1 - interference) + 0.5 x fill_after): complementary
// neighbours first, then the fullest node that still fits (packing keeps whole GPUs free).
std::vector<NodeDecision> DecideNodes(const ExtenderRequest& request);

std::string FilterResponseJson(const ExtenderRequest& request, const std::vector<NodeDecision>& decisions);
std::string PrioritizeResponseJson(const std::vector<NodeDecision>& decisions);

}  // namespace kraken::k8s
