#include "app/analyze_request.h"

#include "analysis/aggregate.h"
#include "analysis/insights/stragglers.h"
#include "analysis/insights/path_insights.h"
#include "app/parallel_work.h"
#include "base/number_input.h"
#include "base/text.h"
#include "model/device_catalog.h"
#include "report/analysis_output.h"

namespace kraken {
namespace {

// Per-profile kernel groups are kept whole so that merging across ranks is exact.
constexpr size_t kAllKernelGroups = 1'000'000;

Status ParseThresholds(const std::string& text, ClassifyOptions* options) {
  auto parts = Split(text, ',');
  if (parts.size() != 2) return InvalidInput("--thresholds expects LOW,HIGH (e.g. 10,50), got '" + text + "'");
  auto low = ParseBoundedNumber(parts[0], 0, 1e9);
  auto high = ParseBoundedNumber(parts[1], 0, 1e9);
  if (!low || !high || *high < *low)
    return InvalidInput("--thresholds expects two numbers LOW <= HIGH, got '" + text + "'");
  options->fixed_low_ai = *low;
  options->fixed_high_ai = *high;
  return Status::Ok();
}

}  // namespace

Result<CharacterizeOptions> MakeCharacterizeOptions(const AnalyzeSettings& settings) {
  CharacterizeOptions options;
  options.kernels.top_n = kAllKernelGroups;
  options.timeline.linked_only = settings.linked_only;
  if (!settings.device.empty()) {
    options.device = FindDeviceSpec(settings.device);
    if (options.device == nullptr)
      return InvalidInput("unknown device '" + settings.device + "' (see `kraken devices` for the catalog)");
  }
  if (!settings.thresholds.empty()) KRAKEN_RETURN_IF_ERROR(ParseThresholds(settings.thresholds, &options.kernels.classify));
  if (settings.window != "trace" && settings.window != "steps")
    return InvalidInput("--window must be 'trace' or 'steps', got '" + settings.window + "'");
  options.kernels_over_steps = settings.window == "steps";
  return options;
}

std::string RenderAnalysis(const std::vector<Profile>& profiles, const AnalyzeSettings& settings,
                           const CharacterizeOptions& options, bool json) {
  // Ranks are independent until the aggregate: each is characterized on its own core.
  // The straggler search's per-rank part (finding each rank's collectives) runs there too:
  // done after the join it was a tenth of the work on the DLRM ranks, all on one core.
  std::vector<AnalyzedProfile> analyzed(profiles.size());
  std::vector<std::vector<CommKernel>> communication(profiles.size());
  ParallelFor(profiles.size(), AnalysisThreads(), [&](size_t i) {
    AnalyzedProfile& a = analyzed[i];
    a.profile = &profiles[i];
    a.report = CharacterizeWorkload(profiles[i], options);
    a.series = SummarizeSeries(profiles[i]);
    // One classification for the critical path, the kernel sequences and the stragglers.
    const CommunicationKernels comm = ClassifyCommunication(profiles[i]);
    a.path_insights = AnalyzePathInsights(profiles[i], comm);
    if (profiles[i].metadata.kernel_timestamps_valid && profiles.size() > 1)
      communication[i] = CommunicationKernelsByStart(profiles[i], comm);
  });
  std::vector<RankInput> ranks;
  for (size_t i = 0; i < analyzed.size(); ++i) {
    const AnalyzedProfile& a = analyzed[i];
    if (a.profile->metadata.kernel_timestamps_valid && !a.profile->kernels.empty())
      ranks.push_back({a.profile, &a.report.timeline, &communication[i]});
  }
  const StragglerReport stragglers = FindStragglers(ranks);
  std::vector<const WorkloadReport*> reports;
  for (const AnalyzedProfile& a : analyzed) reports.push_back(&a.report);
  AggregateReport aggregate = Aggregate(reports, kAllKernelGroups);

  AnalysisOutputOptions output;
  output.steps_window = settings.window == "steps";
  output.top_n = settings.top;
  output.thresholds = settings.thresholds;
  output.device_override = settings.device;
  output.stragglers = &stragglers;
  if (!json) return RenderAnalysisText(analyzed, aggregate, output);
  // Each rank's part of the document on its own core; the whole is spliced in order.
  std::vector<std::string> rank_json(analyzed.size());
  ParallelFor(analyzed.size(), AnalysisThreads(), [&](size_t i) { rank_json[i] = RenderRankJson(analyzed[i], output); });
  return RenderAnalysisJson(analyzed, rank_json, aggregate, output);
}

}  // namespace kraken
