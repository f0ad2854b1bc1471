// Rendering of the trace insights (critical path, kernel sequences, stragglers) inside
// `kraken analyze`'s JSON and text documents, and of `kraken diff`'s document. Keys are
// documented in docs/json-output.md.
#pragma once

#include <string>

#include "analysis/insights/stragglers.h"
#include "analysis/insights/trace_diff.h"
#include "analysis/insights/path_insights.h"
#include "base/json_writer.h"

namespace kraken {

// "critical_path": {...}, "kernel_sequences": [...] as fields of the open rank object.
void WriteInsightsJson(JsonWriter& json, const PathInsights& insights);
// "stragglers": {...} as a field of the open document object.
void WriteStragglersJson(JsonWriter& json, const StragglerReport& report);
std::string RenderInsightsText(const PathInsights& insights);
std::string RenderStragglersText(const StragglerReport& report);

// `kraken diff`'s document; `a_name`/`b_name` say what each side is.
void WriteTraceDiffJson(JsonWriter& json, const TraceDiff& diff);
std::string RenderTraceDiffText(const TraceDiff& diff, const std::string& a_name, const std::string& b_name);

}  // namespace kraken
