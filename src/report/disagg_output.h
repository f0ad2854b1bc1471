// Rendering of `kraken disagg` results: readable text (with --explain, every input, term
// and assumption) or one JSON document (keys in docs/disaggregation.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/disagg/disagg_analysis.h"
#include "analysis/disagg/fleet_reference.h"

namespace kraken {

struct DisaggOutputOptions {
  bool explain = false;
  std::optional<disagg::FleetReference> reference;
  std::string reference_source;
};

std::string RenderDisaggText(const std::vector<disagg::DisaggResult>& results, const DisaggOutputOptions& options);
std::string RenderDisaggJson(const std::vector<disagg::DisaggResult>& results, const DisaggOutputOptions& options);

}  // namespace kraken
