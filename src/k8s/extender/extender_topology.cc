#include "k8s/extender/extender_topology.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/topology/gpu_set.h"
#include "base/text_table.h"
#include "k8s/client/topology_annotation.h"

namespace kraken::k8s {
namespace {

constexpr double kNoTopologyTerm = 0.5;

struct NodeSets {
  std::optional<NodeGpuTopology> topology;
  std::string why;  // the annotation was refused
  topology::GpuSetChoice best;
  topology::GpuSetChoice blind;
};

std::string SetText(const topology::GpuSetChoice& c) {
  return "GPUs " + topology::FormatGpuSet(c.gpus) + " (slowest pair " + FormatFixed(c.bottleneck_gbps, 1) + " GB/s, " +
         std::to_string(c.numa_nodes) + " NUMA node(s), " + std::to_string(c.shared_switch_pairs) +
         " pair(s) on a shared PCIe switch)";
}

// The nvlink-required check; empty when the node passes.
std::string NvlinkFailure(const NodeSets& s, int64_t want) {
  if (!s.topology) return "pod requires NVLink; node has no usable kraken.io/gpu-topology" + (s.why.empty() ? "" : " (" + s.why + ")");
  if (!s.topology->HasNvlink()) return "pod requires NVLink; the node's GPUs have none";
  if (want >= 2 && !(s.best.found && s.best.all_nvlink))
    return "pod requires NVLink; no " + std::to_string(want) + " free GPUs all joined by NVLink";
  return "";
}

}  // namespace

void ApplyTopology(const ExtenderRequest& request, const ExtenderOptions& options, std::vector<NodeDecision>* decisions) {
  const int64_t want = request.pod_gpu_request;
  const bool nvlink_required = request.pod.topology_requirement == kNvlinkRequired;
  if (want < 2 && !nvlink_required) return;
  const size_t n = std::min(decisions->size(), request.nodes.size());
  std::vector<NodeSets> sets(n);
  double best_bottleneck = 0;
  bool any_topology = false;
  for (size_t i = 0; i < n; ++i) {
    const ExtenderNode& node = request.nodes[i];
    if (!node.hint.gpu_topology) continue;
    any_topology = true;
    sets[i].topology = ParseTopologyAnnotation(*node.hint.gpu_topology, &sets[i].why);
    if (!sets[i].topology || want < 2 || want > kMaxTopologyGpus) continue;
    sets[i].best = topology::BestGpuSet(*sets[i].topology, static_cast<int>(want));
    sets[i].blind = topology::BlindGpuSet(*sets[i].topology, static_cast<int>(want));
    if (sets[i].best.found && (*decisions)[i].fits) best_bottleneck = std::max(best_bottleneck, sets[i].best.bottleneck_gbps);
  }
  const double w = std::clamp(options.topology_weight, 0.0, 1.0);
  for (size_t i = 0; i < n; ++i) {
    NodeDecision& d = (*decisions)[i];
    const NodeSets& s = sets[i];
    if (nvlink_required) {
      std::string failure = NvlinkFailure(s, want);
      if (!failure.empty()) {
        d.fits = false;
        d.score = 0;
        d.reason = failure + (d.reason.empty() ? "" : "; " + d.reason);
        continue;
      }
    }
    if (!d.fits || want < 2 || !any_topology) continue;  // no node publishes topology: scores unchanged
    double term = kNoTopologyTerm;
    std::string text;
    if (!s.topology) {
      text = "no usable kraken.io/gpu-topology" + (s.why.empty() ? "" : " (" + s.why + ")") + ": term " + FormatFixed(term, 2);
    } else if (!s.best.found) {
      term = 0;
      text = "fewer than " + std::to_string(want) + " free GPUs in kraken.io/gpu-topology: term 0";
    } else {
      d.gpu_set = s.best.gpus;
      d.gpu_set_gbps = s.best.bottleneck_gbps;
      d.blind_set = s.blind.gpus;
      d.blind_set_gbps = s.blind.bottleneck_gbps;
      term = best_bottleneck > 0 ? s.best.bottleneck_gbps / best_bottleneck : 1.0;
      text = "chosen " + SetText(s.best) + " vs topology-blind " + SetText(s.blind) + "; term " +
             FormatFixed(s.best.bottleneck_gbps, 1) + " / " + FormatFixed(best_bottleneck, 1) + " = " + FormatFixed(term, 3);
    }
    int64_t before = d.score;
    d.score = std::clamp<int64_t>(std::llround((1 - w) * static_cast<double>(before) + w * 100 * term), 0,
                                  kMaxExtenderPriority);
    d.reason += (d.reason.empty() ? "" : "; ") + std::string("topology: ") + text + "; score = " + FormatFixed(1 - w, 2) +
                " x " + std::to_string(before) + " + " + FormatFixed(w, 2) + " x 100 x " + FormatFixed(term, 3) + " = " +
                std::to_string(d.score);
  }
}

}  // namespace kraken::k8s
