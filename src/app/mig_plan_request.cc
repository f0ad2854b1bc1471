#include "app/mig_plan_request.h"

#include <memory>
#include <optional>

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "base/byte_stream.h"
#include "base/number_input.h"
#include "base/text.h"
#include "analysis/mig/node_layouts.h"
#include "app/slowdown_budget.h"
#include "report/mig_output.h"
#include "report/mig_parted_output.h"

namespace kraken {
namespace {

// mig-plan's stated input limits (docs/limits.md): a plan of a million workloads is far
// beyond any cluster, and bounds the memory and time of one plan.
constexpr size_t kMaxPlanCsvBytes = 256 * 1024 * 1024;
constexpr size_t kMaxMigWorkloads = 1'000'000;

// "10%", "10" (percent) or "0.1" (a fraction below 1).
Result<double> ParseHeadroom(const std::string& text) {
  std::string_view t = Trim(text);
  bool percent = EndsWith(t, "%");
  if (percent) t.remove_suffix(1);
  auto value = ParseBoundedNumber(t, 0, 1000);
  if (!value) return InvalidInput("--headroom expects a percentage such as 10% (at most 1000%), got '" + text + "'");
  return percent || *value >= 1 ? *value / 100 : *value;
}

// Reads a plan CSV when the file is one; nullopt when it is something to import.
Result<std::optional<std::vector<mig::MigWorkload>>> ReadPlanCsv(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ByteStream> stream, OpenFileStream(path));
  KRAKEN_ASSIGN_OR_RETURN(std::string head, ReadUpTo(*stream, 4096));
  if (!mig::LooksLikeMigPlanCsv(head)) return std::optional<std::vector<mig::MigWorkload>>();
  std::unique_ptr<ByteStream> all = MakePrefixedStream(head, std::move(stream));
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadUpTo(*all, kMaxPlanCsvBytes + 1));
  if (text.size() > kMaxPlanCsvBytes)
    return InvalidInput(path + ": the plan CSV is larger than the limit of " + std::to_string(kMaxPlanCsvBytes) +
                        " bytes");
  auto parsed = mig::ParseMigPlanCsv(text);
  if (!parsed.ok()) return parsed.status().WithContext(path);
  return std::optional<std::vector<mig::MigWorkload>>(std::move(*parsed));
}

std::string KnownGpus() {
  std::string ids;
  for (const MigGeometry& g : MigGeometries()) ids += (ids.empty() ? "" : ", ") + g.device_id;
  return ids;
}

}  // namespace

Result<MigPlanSetup> MakeMigPlanSetup(const MigPlanSettings& settings) {
  MigPlanSetup setup;
  setup.geometry = FindMigGeometry(settings.gpu);
  if (setup.geometry == nullptr)
    return InvalidInput("--gpu '" + settings.gpu + "' has no MIG geometry in kraken (known: " + KnownGpus() + ")");
  KRAKEN_ASSIGN_OR_RETURN(setup.options.memory_headroom, ParseHeadroom(settings.headroom));
  KRAKEN_ASSIGN_OR_RETURN(setup.options.max_slowdown, SlowdownBudgetFromPct(settings.max_slowdown_pct));
  setup.options.slice_alone = settings.slice_alone;
  if (settings.emit != "plan" && settings.emit != "mig-parted" && settings.emit != "node-labels")
    return InvalidInput("--emit expects plan, mig-parted or node-labels, got '" + settings.emit + "'");
  if (settings.gpus_per_node < 1 || settings.gpus_per_node > 64)
    return InvalidInput("--gpus-per-node must be in [1, 64], got " + std::to_string(settings.gpus_per_node));
  return setup;
}

Result<std::vector<mig::MigWorkload>> LoadMigWorkloads(const std::vector<std::string>& arguments,
                                                       const InputOptions& options) {
  std::vector<mig::MigWorkload> workloads;
  for (const std::string& argument : arguments) {
    if (!IsStoredProfileArgument(argument)) {
      auto csv = ReadPlanCsv(argument);
      if (!csv.ok()) return csv.status().WithContext(argument);
      if (csv->has_value()) {
        for (auto& w : **csv) workloads.push_back(std::move(w));
        continue;
      }
    }
    std::vector<Profile> profiles;
    KRAKEN_RETURN_IF_ERROR(LoadProfileInputs({argument}, options, &profiles));
    for (const Profile& p : profiles) {
      WorkloadReport report = CharacterizeWorkload(p);
      for (const WorkloadDemand& d : DeriveDemands(p, report)) workloads.push_back(mig::MigWorkloadFromDemand(d));
    }
  }
  return workloads;
}

Result<std::string> RenderMigPlan(std::vector<mig::MigWorkload> workloads, const MigPlanSettings& settings,
                                  const MigPlanSetup& setup, bool json) {
  for (const std::string& text : settings.workloads) {
    KRAKEN_ASSIGN_OR_RETURN(mig::MigWorkload w, mig::ParseMigWorkloadFlag(text));
    workloads.push_back(std::move(w));
  }
  if (workloads.empty()) return InvalidInput("no workloads: give files or --workload NAME:GIB:SM_FRACTION");
  if (workloads.size() > kMaxMigWorkloads)
    return InvalidInput(std::to_string(workloads.size()) + " workloads: mig-plan plans at most " +
                        std::to_string(kMaxMigWorkloads));
  mig::MigPlan plan = mig::PlanMig(workloads, *setup.geometry, setup.options);
  if (settings.emit != "plan") {
    KRAKEN_ASSIGN_OR_RETURN(std::vector<mig::NodeLayout> nodes,
                            mig::LayoutNodes(plan, settings.gpus_per_node, settings.nodes));
    return settings.emit == "mig-parted" ? RenderMigPartedConfig(nodes, setup.geometry->name)
                                         : RenderMigNodeLabels(nodes);
  }
  return json ? RenderMigPlanJson(plan, workloads, settings.explain)
              : RenderMigPlanText(plan, workloads, settings.explain);
}

}  // namespace kraken
