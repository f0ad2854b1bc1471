// The GPU labels kraken puts on nodes, so a nodeSelector or affinity can ask for a GPU
// class or a MIG layout: kraken.io/gpu-class (the device catalog id, a100-40gb-sxm),
// kraken.io/gpu-count and kraken.io/mig-layout ("3g.20gb-x1.2g.10gb-x2", "none"). Pure
// text rules; the inventory they are made from is promql/node_gpus.h.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace kraken::k8s {

inline constexpr char kGpuClassLabel[] = "kraken.io/gpu-class";
inline constexpr char kGpuCountLabel[] = "kraken.io/gpu-count";
inline constexpr char kMigLayoutLabel[] = "kraken.io/mig-layout";

// Kubernetes label value rule: at most 63 characters, [A-Za-z0-9._-], beginning and
// ending with a letter or digit (or empty).
bool IsValidLabelValue(std::string_view value);

// MIG GPU-instance profile -> number of instances on the node, as one label value:
// "PROFILE-xCOUNT" parts joined by '.', largest slice first (compute slices, then memory,
// then name), "none" for no instance. A character a label value cannot hold ('+' of
// "1g.10gb+me") becomes '_'. A layout longer than 63 characters is "mixed" (the per-GPU
// detail is in the MIG planner's output, not in a label).
std::string MigLayoutText(const std::map<std::string, int>& instances_by_profile);

// The three labels; gpu_class "" (a model kraken cannot name for sure) leaves
// kraken.io/gpu-class out rather than guessing.
std::map<std::string, std::string> NodeGpuLabels(const std::string& gpu_class, int gpu_count,
                                                 const std::map<std::string, int>& instances_by_profile);

// {"metadata":{"labels":{...}}}: a strategic-merge patch that sets only these labels.
std::string LabelPatchBody(const std::map<std::string, std::string>& labels);

}  // namespace kraken::k8s
