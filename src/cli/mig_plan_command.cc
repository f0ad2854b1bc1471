// `kraken mig-plan FILE... --gpu h100-sxm`: choose a MIG profile per workload and pack
// the slices onto the fewest GPUs; say which workloads should not be sliced and why.
#include <unistd.h>

#include <cstdio>

#include "analysis/demand.h"
#include "analysis/mig/mig_plan.h"
#include "base/byte_stream.h"
#include "base/text.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/registry.h"
#include "model/mig_catalog.h"
#include "report/mig_output.h"

namespace kraken::cli {
namespace {

struct MigPlanArgs {
  std::vector<std::string> files;
  std::vector<std::string> workloads;
  std::string gpu = "h100-sxm";
  std::string headroom = "10%";
  bool json = false;
  bool explain = false;
  std::string format;
  std::string output = "-";
};

// "10%", "10" (percent) or "0.1" (a fraction below 1).
Result<double> ParseHeadroom(const std::string& text) {
  std::string_view t = Trim(text);
  bool percent = EndsWith(t, "%");
  if (percent) t.remove_suffix(1);
  auto value = ParseDouble(Trim(t));
  if (!value || *value < 0) return InvalidInput("--headroom expects a percentage such as 10%, got '" + text + "'");
  return percent || *value >= 1 ? *value / 100 : *value;
}

// Reads a plan CSV when the file is one; nullopt when it is something to import.
Result<std::optional<std::vector<mig::MigWorkload>>> ReadPlanCsv(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ByteStream> stream, OpenFileStream(path));
  KRAKEN_ASSIGN_OR_RETURN(std::string head, ReadUpTo(*stream, 4096));
  if (!mig::LooksLikeMigPlanCsv(head)) return std::optional<std::vector<mig::MigWorkload>>();
  std::unique_ptr<ByteStream> all = MakePrefixedStream(head, std::move(stream));
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadAll(*all));
  auto parsed = mig::ParseMigPlanCsv(text);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  return std::optional<std::vector<mig::MigWorkload>>(std::move(*parsed));
}

std::string KnownGpus() {
  std::string ids;
  for (const MigGeometry& g : MigGeometries()) ids += (ids.empty() ? "" : ", ") + g.device_id;
  return ids;
}

int RunMigPlan(const MigPlanArgs& args) {
  const MigGeometry* geometry = FindMigGeometry(args.gpu);
  if (geometry == nullptr)
    return ReportError(InvalidInput("--gpu '" + args.gpu + "' has no MIG geometry in kraken (known: " + KnownGpus() + ")"));
  auto headroom = ParseHeadroom(args.headroom);
  if (!headroom.ok()) return ReportError(headroom.status());
  mig::MigPlanOptions options;
  options.memory_headroom = *headroom;

  std::vector<mig::MigWorkload> workloads;
  for (const std::string& file : args.files) {
    auto csv = ReadPlanCsv(file);
    if (!csv.ok()) return ReportError(csv.status().WithContext(file));
    if (csv->has_value()) {
      for (auto& w : **csv) workloads.push_back(std::move(w));
      continue;
    }
    ImportOptions import_options;
    import_options.forced_format = args.format;
    import_options.progress = MakeProgress(file);
    auto profiles = ImportFile(BuiltinImporters(), file, import_options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!profiles.ok()) return ReportError(profiles.status());
    for (const Profile& p : *profiles) {
      WorkloadReport report = CharacterizeWorkload(p);
      for (const WorkloadDemand& d : DeriveDemands(p, report)) workloads.push_back(mig::MigWorkloadFromDemand(d));
    }
  }
  for (const std::string& text : args.workloads) {
    auto w = mig::ParseMigWorkloadFlag(text);
    if (!w.ok()) return ReportError(w.status());
    workloads.push_back(std::move(*w));
  }
  if (workloads.empty()) return ReportError(InvalidInput("no workloads: give files or --workload NAME:GIB:SM_FRACTION"));
  mig::MigPlan plan = mig::PlanMig(workloads, *geometry, options);
  std::string text = args.json ? RenderMigPlanJson(plan, workloads, args.explain)
                               : RenderMigPlanText(plan, workloads, args.explain);
  Status status = WriteOutput(args.output, text);
  if (!status.ok()) return ReportError(status);
  if (args.output != "-" && !args.output.empty()) std::fprintf(stderr, "kraken: wrote %s\n", args.output.c_str());
  return kExitOk;
}

}  // namespace

void AddMigPlanCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<MigPlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "mig-plan", "Choose MIG profiles for workloads and pack them onto the fewest GPUs; say what not to slice");
  cmd->add_option("files", args->files,
                  "Traces, captures or a plan CSV (header name,memory_gib,sm_fraction[,type,sm_peak,comm_share,"
                  "nvlink_gbps,burst_ratio])")
      ->check(CLI::ExistingFile);
  cmd->add_option("--gpu", args->gpu, "GPU model to plan for: a100-40gb-sxm, a100-80gb-sxm, h100-sxm, h200-sxm")
      ->capture_default_str();
  cmd->add_option("--headroom", args->headroom, "Memory headroom over the measured peak a slice must leave")
      ->capture_default_str();
  cmd->add_option("--workload", args->workloads,
                  "A workload without a profile, NAME:MEMORY_GIB:SM_FRACTION (repeatable), e.g. bert:12:0.25");
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/mig-planning.md)");
  cmd->add_flag("--explain", args->explain, "Print the inputs, sizing terms and assumptions for each workload");
  cmd->add_option("--format", args->format, "Force an importer (see `kraken formats`)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of standard output");
  commands.push_back({cmd, [args] { return RunMigPlan(*args); }});
}

}  // namespace kraken::cli
