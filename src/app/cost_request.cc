#include "app/cost_request.h"

#include <cmath>
#include <map>
#include <tuple>

#include "analysis/characterize.h"
#include "analysis/cost/instance_recommend.h"
#include "analysis/demand.h"
#include "base/number_input.h"
#include "base/small_file.h"
#include "base/text.h"
#include "model/device_catalog.h"
#include "promql/cluster_query.h"
#include "report/cost_output.h"

namespace kraken {
namespace {

constexpr size_t kMaxPriceFileBytes = 16 * kMiB;

Result<double> ParseHeadroomFlag(const std::string& text) {
  std::string_view t = Trim(text);
  bool percent = EndsWith(t, "%");
  if (percent) t.remove_suffix(1);
  auto value = ParseBoundedNumber(t, 0, 1000);
  if (!value) return InvalidInput("--headroom expects a percentage such as 10%, got '" + text + "'");
  return percent || *value >= 1 ? *value / 100 : *value;
}

Status CheckCloud(const std::string& cloud, const std::vector<cost::InstancePrice>& catalog) {
  if (cloud == "any") return Status::Ok();
  for (const cost::InstancePrice& p : catalog)
    if (p.provider == ToLower(cloud)) return Status::Ok();
  return InvalidInput("--cloud '" + cloud + "' has no instance in the price catalog (aws, gcp, azure, any, or a "
                      "provider of --prices)");
}

std::optional<double> MedianStepSeconds(const WorkloadReport& report) {
  if (report.step_time_ns.count <= 0) return std::nullopt;
  return report.step_time_ns.p50 / 1e9;
}

}  // namespace

Result<std::vector<cost::InstancePrice>> LoadPriceCatalog(const std::string& path) {
  if (path.empty()) {
    if (cost::BuiltinPriceCatalog().empty()) return Status(StatusCode::kInternal, "the built-in price catalog did not parse");
    return cost::BuiltinPriceCatalog();
  }
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, kMaxPriceFileBytes, "the --prices file"));
  return cost::ParsePriceCatalog(text, path);
}

Result<std::string> RenderCostRecommendation(const std::vector<std::string>& arguments, const InputOptions& inputs,
                                             const CostRecommendSettings& settings, bool json) {
  if (arguments.empty()) return InvalidInput("cost recommend needs at least one profile (file or stored id)");
  if (settings.budget_usd_per_month < 0) return InvalidInput("--budget must not be negative");
  if (settings.top < 1) return InvalidInput("--top must be at least 1");
  KRAKEN_ASSIGN_OR_RETURN(std::vector<cost::InstancePrice> all, LoadPriceCatalog(settings.prices));
  KRAKEN_RETURN_IF_ERROR(CheckCloud(settings.cloud, all));
  cost::RecommendOptions options;
  options.budget_usd_per_month = settings.budget_usd_per_month;
  options.spot = settings.spot;
  options.current_instance = settings.current;
  KRAKEN_ASSIGN_OR_RETURN(options.memory_headroom, ParseHeadroomFlag(settings.headroom));
  std::vector<cost::InstancePrice> candidates = cost::FilterByProvider(all, settings.cloud);

  LoadedProfiles loaded;
  KRAKEN_RETURN_IF_ERROR(LoadProfileInputs(arguments, inputs, &loaded));
  CostRecommendView view;
  view.cloud = settings.cloud;
  view.spot = settings.spot;
  view.budget_usd_per_month = settings.budget_usd_per_month;
  view.prices_origin = settings.prices.empty() ? "built-in catalog (docs/cost.md)" : settings.prices;
  view.max_rows = settings.top;
  for (size_t i = 0; i < loaded.profiles.size(); ++i) {
    const Profile& profile = loaded.profiles[i];
    WorkloadReport report = CharacterizeWorkload(profile);
    std::vector<WorkloadDemand> demands = DeriveDemands(profile, report);
    if (demands.empty()) return InvalidInput(loaded.origins[i] + ": the profile has no GPU demand to price");
    cost::MeasuredDemand demand = cost::MeasuredDemandFrom(loaded.origins[i], demands, MedianStepSeconds(report));
    auto recommendation = cost::RecommendInstances(demand, candidates, all, options);
    if (!recommendation.ok()) return recommendation.status();
    view.workloads.push_back(std::move(recommendation).value());
  }
  return json ? RenderCostRecommendJson(view) : RenderCostRecommendText(view);
}

}  // namespace kraken
