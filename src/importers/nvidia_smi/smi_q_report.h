// `nvidia-smi -q`: the "==============NVSMI LOG==============" report, an indented
// key-value tree (the indent is the nesting):
//
//   GPU 00000000:00:09.0
//       Product Name                      : NVIDIA H100 80GB HBM3
//       FB Memory Usage
//           Total                         : 81559 MiB
//
// Read as a generic tree, so unknown keys and new groups of newer drivers do not matter.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "importers/nvidia_smi/capture_sections.h"
#include "importers/nvidia_smi/profile_builder.h"

namespace kraken::nvidia_smi {

struct ReportNode {
  std::string key;
  std::string value;  // empty for a group ("FB Memory Usage") or an empty value
  std::vector<ReportNode> children;

  // The descendant at `path` ({"FB Memory Usage", "Total"}), or nullptr.
  const ReportNode* Find(std::initializer_list<std::string_view> path) const;
  // Its value, or "" when absent.
  std::string_view ValueAt(std::initializer_list<std::string_view> path) const;
};

// Builds the tree of one report's lines; the root has no key.
ReportNode ParseReportTree(std::string_view text);

// True when the text holds a -q report.
bool ContainsReport(std::string_view text);

// Reads every report in the section (-q -l logs hold one per interval). Returns the number
// of GPUs read.
int ParseReport(const Section& section, ProfileBuilder& builder);

}  // namespace kraken::nvidia_smi
