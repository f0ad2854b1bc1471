// `kraken analyze FILE...`: imports the inputs and prints the characterization.
#include <unistd.h>

#include <cstdio>

#include "analysis/aggregate.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/registry.h"
#include "model/device_catalog.h"
#include "report/analysis_output.h"

namespace kraken::cli {
namespace {

// Per-profile kernel groups are kept whole so that merging across ranks is exact.
constexpr size_t kAllKernelGroups = 1'000'000;

Status ParseThresholds(const std::string& text, ClassifyOptions* options) {
  auto parts = Split(text, ',');
  if (parts.size() != 2) return InvalidInput("--thresholds expects LOW,HIGH (e.g. 10,50), got '" + text + "'");
  auto low = ParseDouble(parts[0]);
  auto high = ParseDouble(parts[1]);
  if (!low || !high || *low < 0 || *high < *low)
    return InvalidInput("--thresholds expects two numbers LOW <= HIGH, got '" + text + "'");
  options->fixed_low_ai = *low;
  options->fixed_high_ai = *high;
  return Status::Ok();
}

}  // namespace

int RunAnalyze(const AnalyzeArgs& args) {
  CharacterizeOptions options;
  options.kernels.top_n = kAllKernelGroups;
  options.timeline.linked_only = args.linked_only;
  if (!args.device.empty()) {
    options.device = FindDeviceSpec(args.device);
    if (options.device == nullptr)
      return ReportError(InvalidInput("unknown device '" + args.device + "' (see `kraken devices` for the catalog)"));
  }
  if (!args.thresholds.empty()) {
    Status status = ParseThresholds(args.thresholds, &options.kernels.classify);
    if (!status.ok()) return ReportError(status);
  }
  if (args.window != "trace" && args.window != "steps")
    return ReportError(InvalidInput("--window must be 'trace' or 'steps', got '" + args.window + "'"));

  std::vector<Profile> profiles;
  for (const std::string& file : args.files) {
    ImportOptions import_options;
    import_options.forced_format = args.format;
    import_options.progress = MakeProgress(file);
    auto result = ImportFile(BuiltinImporters(), file, import_options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!result.ok()) return ReportError(result.status());
    for (auto& p : *result) profiles.push_back(std::move(p));
  }

  std::vector<AnalyzedProfile> analyzed;
  analyzed.reserve(profiles.size());
  std::vector<const WorkloadReport*> reports;
  for (const Profile& p : profiles) {
    AnalyzedProfile a;
    a.profile = &p;
    a.report = CharacterizeWorkload(p, options);
    a.series = SummarizeSeries(p);
    analyzed.push_back(std::move(a));
  }
  for (const AnalyzedProfile& a : analyzed) reports.push_back(&a.report);
  AggregateReport aggregate = Aggregate(reports, kAllKernelGroups);

  AnalysisOutputOptions output;
  output.steps_window = args.window == "steps";
  output.top_n = args.top;
  output.thresholds = args.thresholds;
  output.device_override = args.device;
  std::string text = args.json ? RenderAnalysisJson(analyzed, aggregate, output)
                               : RenderAnalysisText(analyzed, aggregate, output);
  Status status = WriteOutput(args.output, text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace kraken::cli
