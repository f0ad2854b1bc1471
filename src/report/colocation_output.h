// Rendering of `kraken colocate` results: readable tables (with every input, formula
// part and assumption under --explain) or one JSON document that always carries them
// (keys in docs/colocation.md).
#pragma once

#include <string>
#include <vector>

#include "model/colocation.h"

namespace kraken {

struct ColocationOutputOptions {
  bool explain = false;
  std::string device;           // the device the prediction is for ("" unknown)
  std::vector<std::string> notes;  // from the command: defaults it chose, inputs it skipped
};

std::string RenderColocationText(const ColocationReport& report, const ColocationOutputOptions& options);
std::string RenderColocationJson(const ColocationReport& report, const ColocationOutputOptions& options);

std::string RenderPlacementText(const PlacementResult& result, const ColocationReport& inputs,
                                const ColocationOutputOptions& options);
std::string RenderPlacementJson(const PlacementResult& result, const ColocationReport& inputs,
                                const ColocationOutputOptions& options);

// "mps 60/40", "mig 3g+4g", "timeslice".
std::string ModeLabel(const ModePrediction& mode);

}  // namespace kraken
