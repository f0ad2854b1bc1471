#include "analysis/insights/path_insights.h"

namespace kraken {

PathInsights AnalyzePathInsights(const Profile& profile) {
  PathInsights insights;
  insights.critical_path = AnalyzeCriticalPath(profile);
  insights.kernel_sequences = FindFrequentKernelSequences(profile);
  return insights;
}

}  // namespace kraken
