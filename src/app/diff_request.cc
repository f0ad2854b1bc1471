#include "app/diff_request.h"

#include "app/analyze_request.h"
#include "app/parallel_work.h"
#include "base/json_writer.h"
#include "report/html_report.h"
#include "report/insights_output.h"

namespace kraken {
namespace {

// Characterizes the profiles of one side (each on its own core), classifies each one's
// communication kernels once (the same ClassifyCommunication the analyze request runs),
// and sums them up.
Result<TraceSideSummary> Summarize(const std::vector<Profile>& profiles, const std::string& side_name) {
  std::vector<const Profile*> timed;
  for (const Profile& p : profiles)
    if (p.metadata.kernel_timestamps_valid && (!p.kernels.empty() || !p.memory_ops.empty())) timed.push_back(&p);
  if (timed.empty()) return InvalidInput(side_name + ": no profile with a GPU timeline (kernels with timestamps)");
  auto options = MakeCharacterizeOptions(AnalyzeSettings{});
  if (!options.ok()) return options.status();
  std::vector<WorkloadReport> reports(timed.size());
  std::vector<CommunicationKernels> communication(timed.size());
  ParallelFor(timed.size(), AnalysisThreads(), [&](size_t i) {
    reports[i] = CharacterizeWorkload(*timed[i], *options);
    communication[i] = ClassifyCommunication(*timed[i]);
  });
  std::vector<DiffRank> ranks;
  for (size_t i = 0; i < timed.size(); ++i) ranks.push_back({timed[i], &reports[i], &communication[i]});
  return SummarizeTraceSide(ranks);
}

}  // namespace

Result<TraceDiff> DiffProfiles(const std::vector<Profile>& a, const std::vector<Profile>& b,
                               const DiffSettings& settings) {
  if (settings.top == 0) return InvalidInput("--top must be at least 1");
  KRAKEN_ASSIGN_OR_RETURN(TraceSideSummary side_a, Summarize(a, "A (" + settings.a_name + ")"));
  KRAKEN_ASSIGN_OR_RETURN(TraceSideSummary side_b, Summarize(b, "B (" + settings.b_name + ")"));
  TraceDiffOptions options;
  options.top_n = settings.top;
  return DiffTraces(side_a, side_b, options);
}

std::string RenderDiffJson(const TraceDiff& diff, const DiffSettings& settings) {
  JsonWriter json;
  json.BeginObject();
  json.Field("kraken_version", KRAKEN_VERSION_STRING);
  json.Field("kind", "kraken-diff");
  json.Field("a_name", settings.a_name).Field("b_name", settings.b_name);
  WriteTraceDiffJson(json, diff);
  json.EndObject();
  return json.Take() + "\n";
}

Result<std::string> RenderDiffReport(const TraceDiff& diff, const DiffSettings& settings) {
  const std::string title = "kraken diff: " + settings.a_name + " vs " + settings.b_name;
  JsonWriter head(false);
  head.BeginObject().Field("kind", "kraken-diff-report").Field("title", title);
  head.Key("inputs").BeginArray().String(settings.a_name).String(settings.b_name).EndArray().EndObject();
  std::string data = head.Take();
  data.pop_back();  // the closing brace: the diff document is appended as it is
  data += ",\"diff\":" + RenderDiffJson(diff, settings) + "}";
  return RenderHtmlReport(title, data);
}

Result<std::string> RenderDiff(const std::vector<Profile>& a, const std::vector<Profile>& b,
                               const DiffSettings& settings, bool json) {
  KRAKEN_ASSIGN_OR_RETURN(TraceDiff diff, DiffProfiles(a, b, settings));
  return json ? RenderDiffJson(diff, settings) : RenderTraceDiffText(diff, settings.a_name, settings.b_name);
}

}  // namespace kraken
