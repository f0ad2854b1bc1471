// Rendering of `kraken analyze` results: one JSON document (keys documented in
// docs/json-output.md) or readable text tables.
#pragma once

#include <string>
#include <vector>

#include "analysis/aggregate.h"
#include "analysis/characterize.h"
#include "analysis/insights/stragglers.h"
#include "analysis/insights/path_insights.h"
#include "analysis/series_summary.h"
#include "model/profile.h"

namespace kraken {

// Everything analysed about one profile.
struct AnalyzedProfile {
  const Profile* profile = nullptr;
  WorkloadReport report;
  std::vector<SeriesStats> series;
  PathInsights path_insights;  // critical path, kernel sequences
};

struct AnalysisOutputOptions {
  bool steps_window = false;  // --window steps: the headline timeline is over the steps
  size_t top_n = 10;
  std::string thresholds;     // as given with --thresholds, for the record
  std::string device_override;
  const StragglerReport* stragglers = nullptr;  // across the ranks; null: not computed
};

std::string RenderAnalysisJson(const std::vector<AnalyzedProfile>& profiles, const AggregateReport& aggregate,
                               const AnalysisOutputOptions& options);
// The same document with each rank's object already rendered by RenderRankJson (one per
// profile, in order): the ranks can be rendered on several threads.
std::string RenderAnalysisJson(const std::vector<AnalyzedProfile>& profiles, const std::vector<std::string>& rank_json,
                               const AggregateReport& aggregate, const AnalysisOutputOptions& options);
// One element of the document's "ranks" array, indented for its place there.
std::string RenderRankJson(const AnalyzedProfile& profile, const AnalysisOutputOptions& options);
std::string RenderAnalysisText(const std::vector<AnalyzedProfile>& profiles, const AggregateReport& aggregate,
                               const AnalysisOutputOptions& options);

}  // namespace kraken
