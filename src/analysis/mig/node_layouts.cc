#include "analysis/mig/node_layouts.h"

#include <set>

#include "analysis/mig/layout_name.h"

namespace kraken::mig {

std::map<std::string, int> NodeInstanceTotals(const std::vector<GpuLayout>& gpus) {
  std::map<std::string, int> totals;
  for (const GpuLayout& gpu : gpus)
    for (const auto& [profile, count] : gpu.devices) totals[profile] += count;
  return totals;
}

namespace {

// The node's layout name, or, when an earlier node with other per-GPU layouts already
// holds it (same totals, dealt differently), the name with the first free "-vN" suffix
// (N from 2, in node order: deterministic). A suffix that would break the label value
// rule falls back to the "mixed" family.
std::string DistinctConfigName(const std::vector<GpuLayout>& gpus, const std::set<std::string>& taken) {
  std::string base = MigLayoutName(NodeInstanceTotals(gpus));
  if (!taken.count(base)) return base;
  for (int n = 2;; ++n) {
    std::string candidate = base + "-v" + std::to_string(n);
    if (!IsValidLabelValue(candidate)) {
      base = "mixed";
      n = 1;
      continue;
    }
    if (!taken.count(candidate)) return candidate;
  }
}

}  // namespace

Result<std::vector<NodeLayout>> LayoutNodes(const MigPlan& plan, int gpus_per_node,
                                            const std::vector<std::string>& node_names) {
  if (gpus_per_node < 1) return InvalidInput("--gpus-per-node must be at least 1");
  std::vector<GpuLayout> gpus;
  for (const PackedGpu& packed : plan.packing.gpus) {
    GpuLayout layout;
    layout.mig_enabled = true;
    for (const MigPlacement& p : packed.layout) ++layout.devices[plan.geometry->profiles[p.profile].name];
    gpus.push_back(std::move(layout));
  }
  for (int i = 0; i < plan.gpus_whole; ++i) gpus.push_back(GpuLayout{});
  size_t nodes = (gpus.size() + gpus_per_node - 1) / gpus_per_node;
  if (!node_names.empty() && node_names.size() < nodes)
    return InvalidInput("the plan needs " + std::to_string(nodes) + " node(s) of " + std::to_string(gpus_per_node) +
                        " GPUs; --nodes names " + std::to_string(node_names.size()));
  std::vector<NodeLayout> out;
  std::set<std::string> taken;
  for (size_t n = 0; n < nodes; ++n) {
    NodeLayout node;
    node.node = node_names.empty() ? "node-" + std::to_string(n) : node_names[n];
    for (size_t g = n * gpus_per_node; g < std::min(gpus.size(), (n + 1) * gpus_per_node); ++g)
      node.gpus.push_back(gpus[g]);
    // A node short of a full set keeps its remaining GPUs whole.
    while (node.gpus.size() < static_cast<size_t>(gpus_per_node)) node.gpus.push_back(GpuLayout{});
    for (const NodeLayout& earlier : out)
      if (earlier.gpus == node.gpus) node.config = earlier.config;
    if (node.config.empty()) node.config = DistinctConfigName(node.gpus, taken);
    taken.insert(node.config);
    out.push_back(std::move(node));
  }
  return out;
}

}  // namespace kraken::mig
