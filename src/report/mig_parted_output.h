// `kraken mig-plan --emit mig-parted|node-labels`: the plan's node layouts as the
// nvidia-mig-parted config file the GPU operator's mig-manager applies, and the
// nvidia.com/mig.config label that selects each node's configuration.
#pragma once

#include <string>
#include <vector>

#include "analysis/mig/node_layouts.h"

namespace kraken {

std::string RenderMigPartedConfig(const std::vector<mig::NodeLayout>& nodes, const std::string& gpu_name);
std::string RenderMigNodeLabels(const std::vector<mig::NodeLayout>& nodes);

}  // namespace kraken
