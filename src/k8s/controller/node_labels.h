// The GPU labels kraken puts on nodes, so a nodeSelector or affinity can ask for a GPU
// class or a MIG layout: kraken.io/gpu-class (the device catalog id, a100-40gb-sxm),
// kraken.io/gpu-count and kraken.io/mig-layout ("3g.20gb-x1.2g.10gb-x2", "none": the
// layout's mig::MigLayoutName). Pure text rules; the inventory they are made from is
// promql/node_gpus.h.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "analysis/mig/layout_name.h"

namespace kraken::k8s {

inline constexpr char kGpuClassLabel[] = "kraken.io/gpu-class";
inline constexpr char kGpuCountLabel[] = "kraken.io/gpu-count";
inline constexpr char kMigLayoutLabel[] = "kraken.io/mig-layout";

// The label value rule and the layout's name are the MIG planner's too (its mig-parted
// configurations are named like the label): analysis/mig/layout_name.h.
using mig::IsValidLabelValue;

// The three labels; gpu_class "" (a model kraken cannot name for sure) leaves
// kraken.io/gpu-class out rather than guessing.
std::map<std::string, std::string> NodeGpuLabels(const std::string& gpu_class, int gpu_count,
                                                 const std::map<std::string, int>& instances_by_profile);

// {"metadata":{"labels":{...}}}: a strategic-merge patch that sets only these labels.
std::string LabelPatchBody(const std::map<std::string, std::string>& labels);

}  // namespace kraken::k8s
