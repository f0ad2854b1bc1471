#include "analysis/insights/trace_insights.h"

namespace kraken {

TraceInsights AnalyzeTraceInsights(const Profile& profile) {
  TraceInsights insights;
  insights.critical_path = AnalyzeCriticalPath(profile);
  insights.kernel_sequences = FindFrequentKernelSequences(profile);
  return insights;
}

}  // namespace kraken
