// Rendering of the HTA-style analyses of one rank (analysis/trace_insights.h): their keys
// inside `ranks[]` of `kraken analyze --json` (docs/json-output.md) and their text tables.
#pragma once

#include <string>

#include "analysis/trace_insights.h"
#include "base/json_writer.h"

namespace kraken {

// Writes the keys idle_breakdown, launch_queue, memcpy_bandwidth, overlap,
// memory_timeline, step_kernels and communication into the open rank object.
void WriteTraceInsightsJson(JsonWriter& json, const TraceInsights& insights);

// The text tables, for one rank.
std::string RenderTraceInsightsText(const TraceInsights& insights);

}  // namespace kraken
