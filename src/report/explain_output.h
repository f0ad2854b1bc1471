// Rendering of an Explanation (inputs, formula terms, assumptions) for --explain, as
// text tables or as JSON members.
#pragma once

#include <string>

#include "analysis/explanation.h"
#include "base/json_writer.h"

namespace kraken {

// "12.3 GiB", "45.0%", "1.2e+09 B/s": a value in its unit for people.
std::string FormatExplainValue(double value, const std::string& unit);

// Appends the explanation as indented tables and a bullet list of assumptions.
void RenderExplanationText(std::string& out, const Explanation& e, const std::string& indent = "    ");

// Writes {"inputs": [...], "terms": [...], "assumptions": [...]} as the current value.
void WriteExplanationJson(JsonWriter& json, const Explanation& e);

}  // namespace kraken
