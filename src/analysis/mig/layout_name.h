// The one name of a MIG layout that both sides of the GPU operator's mig-manager see: the
// controller writes it as the node label nvidia.com/mig.config (and kraken.io/mig-layout),
// and `mig-plan --emit mig-parted` names its configurations by it, so the label always
// selects a configuration the file holds (docs/mig-planning.md, docs/mig-rebalancing.md).
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace kraken::mig {

// Kubernetes label value rule: at most 63 characters, [A-Za-z0-9._-], beginning and
// ending with a letter or digit (or empty).
bool IsValidLabelValue(std::string_view value);

// MIG GPU-instance profile -> number of instances on a node, as one label value:
// "PROFILE-xCOUNT" parts joined by '.', largest slice first (compute slices, then memory,
// then name), "none" for no instance. A character a label value cannot hold ('+' of
// "1g.10gb+me") becomes '_'. A layout longer than 63 characters is "mixed" (the per-GPU
// detail is in the MIG planner's output, not in a label).
std::string MigLayoutName(const std::map<std::string, int>& instances_by_profile);

}  // namespace kraken::mig
