#include "analysis/insights/path_insights.h"

namespace kraken {

PathInsights AnalyzePathInsights(const Profile& profile, const CommunicationKernels& communication) {
  PathInsights insights;
  insights.critical_path = AnalyzeCriticalPath(profile, communication);
  insights.kernel_sequences = FindFrequentKernelSequences(profile, communication);
  return insights;
}

PathInsights AnalyzePathInsights(const Profile& profile) {
  return AnalyzePathInsights(profile, ClassifyCommunication(profile));
}

}  // namespace kraken
