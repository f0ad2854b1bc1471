// kube-scheduler extender protocol v1 (k8s.io/kube-scheduler/extender/v1): the scheduler
// POSTs ExtenderArgs {"pod", "nodes" | "nodenames"} to the filter and prioritize verbs;
// filter answers ExtenderFilterResult {"nodes" | "nodenames", "failedNodes", "error"},
// prioritize a HostPriorityList [{"host", "score"}] with scores 0..100
// (MaxExtenderPriority). Decisions read kraken's annotations: the pending pod's demand
// vector (kraken.io/demand) and the demands of the GPU pods each node runs
// (kraken.io/resident-demand), fed to the co-location model (extender_model.h); pods
// with only the older annotations fall back to the class table.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "k8s/client/object_json.h"

namespace kraken::k8s {

inline constexpr int64_t kMaxExtenderPriority = 100;

// What kraken knows of a pod or node from its kraken.io/* annotations.
struct GpuProfileHint {
  std::optional<double> gpu_util_p95;  // kraken.io/gpu-util-p95
  std::string bound;                   // kraken.io/bound: compute, memory, mixed, ...
  std::string colocation_class;        // kraken.io/colocation-class: dedicated, mig, share
  std::optional<std::string> demand;           // kraken.io/demand (pods)
  std::optional<std::string> resident_demand;  // kraken.io/resident-demand (nodes)
  std::optional<std::string> gpu_topology;     // kraken.io/gpu-topology (nodes)
  std::string topology_requirement;            // kraken.io/topology (pods): nvlink-required
  bool HasClassHints() const { return gpu_util_p95.has_value() || !bound.empty() || !colocation_class.empty(); }
};

struct ExtenderNode {
  std::string name;
  GpuProfileHint hint;
  std::string raw_json;  // the Node object as sent (echoed back by filter when "nodes" was used)
  // metadata.labels the decision reads: kraken.io/gpu-class, nvidia.com/gpu.product,
  // nvidia.com/gpu.count, nvidia.com/gpu.replicas, nvidia.com/gpu.sharing-strategy.
  std::map<std::string, std::string> labels;
  int64_t allocatable_gpus = -1;  // status.allocatable["nvidia.com/gpu"], -1 absent
  int64_t capacity_gpus = -1;     // status.capacity["nvidia.com/gpu"], -1 absent
};

struct ExtenderRequest {
  std::string pod_namespace;
  std::string pod_name;
  GpuProfileHint pod;
  int64_t pod_gpu_request = 0;  // nvidia.com/gpu over the containers (limits, else requests)
  std::vector<ExtenderNode> nodes;
  bool by_name = false;  // the scheduler sent "nodenames" (nodeCacheCapable: true)
  ObjectRef pod_workload;  // the pod's controller owner, else the pod
  // How a stored GpuWorkloadProfile fed the decision (extender/stored_profile.h), or "".
  std::string stored_profile_note;
};

// Most nodes one request may carry (Kubernetes supports clusters of up to 5,000 nodes); a
// request with more is refused rather than scored for seconds.
inline constexpr size_t kMaxExtenderNodes = 15000;
// Largest ExtenderArgs body the server reads (full Node objects run to ~10 KB each).
inline constexpr int64_t kMaxExtenderBodyBytes = int64_t{160} << 20;

Result<ExtenderRequest> ParseExtenderArgs(std::string_view json);

struct NodeDecision {
  std::string node;
  bool fits = true;
  std::string reason;  // why it fails, or how the score was made (every input and weight)
  std::string basis;   // "co-location model", "class table", "no data"
  // Co-location model: the pod's predicted penalty (slowdown, or p99 increase), the worst
  // of it and what the pod adds to each resident sharing its GPU (with / without the pod),
  // their summed extra (sum of penalty - 1), and the 0..1 interference and packing terms.
  double pod_slowdown = 1;
  double worst_penalty = 1;
  double interference_cost = 0;
  double interference_term = 0;
  double packing_term = 0;
  // Class table: 0 = complementary, 1 = the worst pair; node GPU p95 + pod p95.
  double interference = 0;
  double fill_after = 0;
  int64_t score = 0;  // 0..kMaxExtenderPriority
  // Topology (multi-GPU pods, nodes with kraken.io/gpu-topology; extender_topology.h): the
  // GPUs chosen, the one-direction GB/s of their slowest pair, and the same for the
  // lowest-indexed free GPUs a topology-blind allocator would give.
  // Co-location model on an MPS node, sharing a GPU with residents: the
  // CUDA_MPS_ACTIVE_THREAD_PERCENTAGE the model recommends for the pod (-1: none).
  int mps_thread_percentage = -1;
  std::vector<int> gpu_set;
  double gpu_set_gbps = 0;
  std::vector<int> blind_set;
  double blind_set_gbps = 0;
};

struct ExtenderOptions {
  // Highest predicted penalty (slowdown, or p99 increase for a request-driven workload)
  // of the pod or any resident it would share a GPU with. 2.0: there the pair score
  // 1/s_a + 1/s_b - 1 of docs/colocation.md reaches 0, i.e. sharing gets no more work
  // done than running one after the other.
  double max_slowdown = 2.0;
  std::string packing_policy = "BestFit";  // a policy of analysis/pack (BestFit or FGD)
  double interference_weight = 0.7;
  double packing_weight = 0.3;
  // Multi-GPU pods on nodes with a published topology: score = (1 - w) x score + w x 100
  // x (bottleneck GB/s of the node's best free set / the best of any node).
  double topology_weight = 0.5;
};

// Node score with no kraken data (co-location path): the middle of 0..100.
inline constexpr int64_t kNeutralScore = 50;

// Co-location path (the pod has kraken.io/demand; extender_model.cc): see
// docs/scheduler-extender.md. Otherwise the class-table fallback (pods with only the older
// annotations): a node fails when the pod wants its GPU alone (colocation class
// "dedicated") and the node's GPUs are busy (p95 > 5 %), or when the summed p95 of pod
// and node exceeds 100 %; score = 100 x (0.5 x (1 - interference) + 0.5 x fill_after).
// Nodes without kraken data pass either way (no data is no reason to refuse).
// Then the topology stage (extender_topology.h) for multi-GPU and nvlink-required pods.
std::vector<NodeDecision> DecideNodes(const ExtenderRequest& request, const ExtenderOptions& options = {});
std::vector<NodeDecision> DecideNodesWithoutTopology(const ExtenderRequest& request, const ExtenderOptions& options);
std::vector<NodeDecision> DecideNodesByClassTable(const ExtenderRequest& request);

std::string FilterResponseJson(const ExtenderRequest& request, const std::vector<NodeDecision>& decisions);
std::string PrioritizeResponseJson(const std::vector<NodeDecision>& decisions);
// Debug: every decision with its reason ({"pod": ..., "nodes": [{"host", "fits", "score",
// "basis", "reason"}]}), for `kraken extender --log-decisions` and POST {prefix}/explain.
std::string DecisionsJson(const ExtenderRequest& request, const std::vector<NodeDecision>& decisions);

}  // namespace kraken::k8s
