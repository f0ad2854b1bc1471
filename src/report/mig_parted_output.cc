#include "report/mig_parted_output.h"

#include <set>

namespace kraken {
namespace {

// Consecutive device indices with the same layout, as mig-parted's "devices: [a,b,...]".
std::string DeviceList(const std::vector<int>& indices) {
  std::string out = "[";
  for (size_t i = 0; i < indices.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.append(std::to_string(indices[i]));
  }
  return out + "]";
}

void ConfigYaml(const mig::NodeLayout& node, std::string& out) {
  out += "  " + node.config + ":\n";
  std::vector<bool> done(node.gpus.size(), false);
  for (size_t i = 0; i < node.gpus.size(); ++i) {
    if (done[i]) continue;
    std::vector<int> same;
    for (size_t j = i; j < node.gpus.size(); ++j) {
      if (!done[j] && node.gpus[j] == node.gpus[i]) {
        same.push_back(static_cast<int>(j));
        done[j] = true;
      }
    }
    const mig::GpuLayout& layout = node.gpus[i];
    std::string devices = same.size() == node.gpus.size() ? "all" : DeviceList(same);
    out += "    - devices: " + devices + "\n";
    out += std::string("      mig-enabled: ") + (layout.mig_enabled ? "true" : "false") + "\n";
    if (!layout.mig_enabled) continue;
    out += "      mig-devices:\n";
    for (const auto& [profile, count] : layout.devices)
      out += "        \"" + profile + "\": " + std::to_string(count) + "\n";
  }
}

}  // namespace

std::string RenderMigPartedConfig(const std::vector<mig::NodeLayout>& nodes, const std::string& gpu_name) {
  std::string out = "# nvidia-mig-parted configuration written by `kraken mig-plan --emit mig-parted` for " +
                    gpu_name + ".\n# Select one per node with the label nvidia.com/mig.config=<name>.\n";
  out += "version: v1\nmig-configs:\n";
  std::set<std::string> written;
  for (const mig::NodeLayout& node : nodes)
    if (written.insert(node.config).second) ConfigYaml(node, out);
  return out;
}

std::string RenderMigNodeLabels(const std::vector<mig::NodeLayout>& nodes) {
  std::string out;
  for (const mig::NodeLayout& node : nodes)
    out += "kubectl label node " + node.node + " nvidia.com/mig.config=" + node.config + " --overwrite\n";
  return out;
}

}  // namespace kraken
