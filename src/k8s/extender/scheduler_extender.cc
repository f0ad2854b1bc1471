#include "k8s/extender/scheduler_extender.h"

#include <algorithm>
#include <cmath>

#include "analysis/colocate/colocate.h"
#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/extender/extender_model.h"
#include "k8s/extender/extender_topology.h"

namespace kraken::k8s {
namespace {

constexpr double kBusyNodeP95 = 0.05;

}  // namespace

std::vector<NodeDecision> DecideNodes(const ExtenderRequest& request, const ExtenderOptions& options) {
  std::vector<NodeDecision> out = DecideNodesWithoutTopology(request, options);
  ApplyTopology(request, options, &out);
  return out;
}

std::vector<NodeDecision> DecideNodesWithoutTopology(const ExtenderRequest& request, const ExtenderOptions& options) {
  std::string why;
  std::optional<DemandEntry> pod;
  if (request.pod.demand) pod = ParseDemandEntry(*request.pod.demand, &why);
  if (pod) return DecideNodesByModel(request, *pod, options);
  std::string fallback = request.pod.demand ? "kraken.io/demand ignored (" + why + ")" : "pod has no kraken.io/demand";
  if (!request.pod.HasClassHints()) {
    std::vector<NodeDecision> out;
    for (const ExtenderNode& node : request.nodes) {
      NodeDecision d;
      d.node = node.name;
      d.basis = "no data";
      d.score = kNeutralScore;
      d.reason = fallback + " and no kraken annotations: passes with the neutral score " + std::to_string(kNeutralScore);
      out.push_back(std::move(d));
    }
    return out;
  }
  std::vector<NodeDecision> out = DecideNodesByClassTable(request);
  for (NodeDecision& d : out) d.reason = "class table (" + fallback + "): " + d.reason;
  return out;
}

std::vector<NodeDecision> DecideNodesByClassTable(const ExtenderRequest& request) {
  std::vector<NodeDecision> out;
  const GpuProfileHint& pod = request.pod;
  double pod_p95 = pod.gpu_util_p95.value_or(0);
  for (const ExtenderNode& node : request.nodes) {
    NodeDecision d;
    d.node = node.name;
    d.basis = "class table";
    double node_p95 = node.hint.gpu_util_p95.value_or(0);
    d.fill_after = std::min(1.0, node_p95 + pod_p95);
    // kraken's class table scores how well two bound classes share (1 = complementary).
    bool classes_known = !pod.bound.empty() && !node.hint.bound.empty() && node_p95 > 0;
    d.interference = classes_known ? 1.0 - ClassTableScore(pod.bound, node.hint.bound) : 0.0;
    if (!node.hint.gpu_util_p95) {
      d.reason = "no kraken annotations on the node: assumed idle";
    } else if (pod.colocation_class == "dedicated" && node_p95 > kBusyNodeP95) {
      d.fits = false;
      d.reason = "pod wants a dedicated GPU; node GPU p95 " + FormatFixed(node_p95 * 100, 1) + "%";
    } else if (node_p95 + pod_p95 > 1.0) {
      d.fits = false;
      d.reason = "GPU p95 would reach " + FormatFixed((node_p95 + pod_p95) * 100, 1) + "% (node " +
                 FormatFixed(node_p95 * 100, 1) + "% + pod " + FormatFixed(pod_p95 * 100, 1) + "%)";
    }
    double score = 0.5 * (1.0 - d.interference) + 0.5 * d.fill_after;
    d.score = d.fits ? std::clamp<int64_t>(std::llround(score * kMaxExtenderPriority), 0, kMaxExtenderPriority) : 0;
    if (d.fits)
      d.reason += std::string(d.reason.empty() ? "" : "; ") + "score = 100 x (0.5 x (1 - " +
                  FormatFixed(d.interference, 2) + ") + 0.5 x " + FormatFixed(d.fill_after, 3) + ") = " +
                  std::to_string(d.score);
    out.push_back(std::move(d));
  }
  return out;
}

std::string FilterResponseJson(const ExtenderRequest& request, const std::vector<NodeDecision>& decisions) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject();
  if (request.by_name) {
    json.Key("nodenames").BeginArray();
    for (const NodeDecision& d : decisions)
      if (d.fits) json.String(d.node);
    json.EndArray();
  }
  json.Key("failedNodes").BeginObject();
  for (const NodeDecision& d : decisions)
    if (!d.fits) json.Field(d.node, d.reason);
  json.EndObject();
  json.Field("error", "");
  json.EndObject();
  std::string out = json.Take();
  if (request.by_name) return out;
  // "nodes": the NodeList with the Node objects as the scheduler sent them.
  std::string items;
  for (size_t i = 0; i < decisions.size() && i < request.nodes.size(); ++i) {
    if (!decisions[i].fits) continue;
    if (!items.empty()) items += ',';
    items += request.nodes[i].raw_json;
  }
  return "{\"nodes\":{\"items\":[" + items + "]}," + out.substr(1);
}

std::string PrioritizeResponseJson(const std::vector<NodeDecision>& decisions) {
  JsonWriter json(/*pretty=*/false);
  json.BeginArray();
  for (const NodeDecision& d : decisions) json.BeginObject().Field("host", d.node).Field("score", d.score).EndObject();
  json.EndArray();
  return json.Take();
}

}  // namespace kraken::k8s

namespace kraken::k8s {

std::string DecisionsJson(const ExtenderRequest& request, const std::vector<NodeDecision>& decisions) {
  JsonWriter json(/*pretty=*/false);
  json.BeginObject().Field("pod", request.pod_namespace + "/" + request.pod_name);
  if (!request.stored_profile_note.empty()) json.Field("stored_profile", request.stored_profile_note);
  json.Key("nodes").BeginArray();
  for (const NodeDecision& d : decisions) {
    json.BeginObject()
        .Field("host", d.node)
        .Field("fits", d.fits)
        .Field("score", d.score)
        .Field("basis", d.basis)
        .Field("reason", d.reason);
    if (d.mps_thread_percentage > 0) json.Field("mps_active_thread_percentage", d.mps_thread_percentage);
    if (!d.gpu_set.empty()) {
      json.Key("gpus").BeginArray();
      for (int g : d.gpu_set) json.Int(g);
      json.EndArray().Field("gpus_slowest_pair_gbps", d.gpu_set_gbps).Key("blind_gpus").BeginArray();
      for (int g : d.blind_set) json.Int(g);
      json.EndArray().Field("blind_slowest_pair_gbps", d.blind_set_gbps);
    }
    json.EndObject();
  }
  json.EndArray().EndObject();
  return json.Take();
}

}  // namespace kraken::k8s
