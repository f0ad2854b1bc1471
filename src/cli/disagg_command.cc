// `kraken disagg FILE...`: how well each workload suits disaggregated, pooled or shared
// GPUs: score with its parts, recommended strategy, impact range and savings.
#include <unistd.h>

#include <cstdio>

#include "analysis/demand.h"
#include "analysis/disagg/disagg_analysis.h"
#include "analysis/disagg/fleet_reference.h"
#include "base/byte_stream.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/registry.h"
#include "report/disagg_output.h"

namespace kraken::cli {
namespace {

struct DisaggArgs {
  std::vector<std::string> files;
  std::vector<std::string> links;
  double price = 2.50;
  bool json = false;
  bool explain = false;
  std::string reference;
  std::string format;
  std::string output = "-";
};

Result<std::string> ReadMaybeGzipped(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ByteStream> stream, OpenFileStream(path));
  KRAKEN_ASSIGN_OR_RETURN(std::string head, ReadUpTo(*stream, 2));
  std::unique_ptr<ByteStream> rest = MakePrefixedStream(head, std::move(stream));
  if (LooksGzipped(head)) rest = MakeGzipStream(std::move(rest));
  return ReadAll(*rest);
}

int RunDisagg(const DisaggArgs& args) {
  disagg::DisaggOptions options;
  options.price_per_gpu_hour = args.price;
  if (args.price < 0) return ReportError(InvalidInput("--price must be >= 0 $/GPU-hour"));
  for (const std::string& text : args.links) {
    auto link = disagg::ParseRemoteLink(text);
    if (!link.ok()) return ReportError(link.status());
    options.links.push_back(*link);
  }
  DisaggOutputOptions output;
  output.explain = args.explain;
  if (!args.reference.empty()) {
    auto text = ReadMaybeGzipped(args.reference);
    if (!text.ok()) return ReportError(text.status().WithContext(args.reference));
    auto reference = disagg::SummarizeDisaggregatedFleet(*text);
    if (!reference.ok()) return ReportError(reference.status().WithContext(args.reference));
    output.reference = *reference;
    output.reference_source = args.reference;
  }

  std::vector<disagg::DisaggResult> results;
  for (const std::string& file : args.files) {
    ImportOptions import_options;
    import_options.forced_format = args.format;
    import_options.progress = MakeProgress(file);
    auto profiles = ImportFile(BuiltinImporters(), file, import_options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!profiles.ok()) return ReportError(profiles.status());
    for (const Profile& p : *profiles) {
      WorkloadReport report = CharacterizeWorkload(p);
      for (const WorkloadDemand& d : DeriveDemands(p, report))
        results.push_back(disagg::AnalyzeDisaggregation(p, report, d, options));
    }
  }
  if (results.empty()) return ReportError(InvalidInput("the inputs hold no workload to analyse"));
  std::string text = args.json ? RenderDisaggJson(results, output) : RenderDisaggText(results, output);
  Status status = WriteOutput(args.output, text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace

void AddDisaggCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<DisaggArgs>();
  CLI::App* cmd = app.add_subcommand(
      "disagg", "Score how well workloads suit disaggregated, pooled or shared GPUs; recommend a strategy");
  cmd->add_option("files", args->files, "Traces, nvidia-smi/DCGM captures or Prometheus series")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--link", args->links,
                  "Remote link BANDWIDTH,LATENCY to model (repeatable; the first is scored), e.g. 100Gbps,5us; "
                  "default: 100Gbps,5us 25Gbps,10us 400Gbps,2us");
  cmd->add_option("--price", args->price, "Price of a GPU-hour in $ for the savings")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/disaggregation.md)");
  cmd->add_flag("--explain", args->explain, "Print every input, formula part and assumption behind each figure");
  cmd->add_option("--reference", args->reference,
                  "Alibaba GPU-disaggregated DLRM trace (disaggregated_DLRM_trace.csv[.gz]) to print the resource "
                  "ratios real disaggregated deployments use")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunDisagg(*args); }});
}

}  // namespace kraken::cli
