#include "analysis/cost/chargeback.h"

#include <algorithm>
#include <set>

#include "base/csv_reader.h"
#include "base/number_input.h"
#include "base/text.h"

namespace kraken::cost {
namespace {

// MIG geometries of A100/H100/H200 have 7 compute slices.
constexpr double kMigComputeSlices = 7;
constexpr double kDaysPerMonth = 30;

void Add(TeamCharge& into, const TeamCharge& part) {
  into.allocated_gpu_hours += part.allocated_gpu_hours;
  into.used_gpu_hours += part.used_gpu_hours;
  into.cost_usd += part.cost_usd;
  into.idle_cost_usd += part.idle_cost_usd;
}

}  // namespace

double MigShareOfGpu(std::string_view profile) {
  if (profile.empty()) return 1;
  size_t g = profile.find('g');
  if (g == std::string_view::npos || g == 0) return 1;
  auto slices = ParseBoundedNumber(profile.substr(0, g), 1, kMigComputeSlices);
  return slices ? *slices / kMigComputeSlices : 1;
}

Chargeback ComputeChargeback(const std::vector<AllocatedGpu>& gpus, int64_t range_s, int64_t step_s,
                             const std::map<std::string, double>& usd_per_gpu_hour_by_model,
                             std::optional<double> default_usd_per_gpu_hour,
                             const std::map<std::string, double>& budgets) {
  Chargeback out;
  out.range_s = range_s;
  out.step_s = step_s;
  std::map<std::string, TeamCharge> by_team;
  std::map<std::string, std::set<std::string>> pods;
  std::set<std::string> unpriced;
  const double step_h = static_cast<double>(step_s) / 3600.0;
  for (const AllocatedGpu& g : gpus) {
    std::optional<double> price = default_usd_per_gpu_hour;
    auto it = usd_per_gpu_hour_by_model.find(g.gpu_model);
    if (it != usd_per_gpu_hour_by_model.end()) price = it->second;
    if (!price) unpriced.insert(g.gpu_model.empty() ? "unknown" : g.gpu_model);
    TeamCharge part;
    part.allocated_gpu_hours = static_cast<double>(g.samples) * step_h * g.share_of_gpu;
    part.used_gpu_hours = g.busy_sum * step_h * g.share_of_gpu;
    part.cost_usd = part.allocated_gpu_hours * price.value_or(0);
    part.idle_cost_usd = (part.allocated_gpu_hours - part.used_gpu_hours) * price.value_or(0);
    TeamCharge& team = by_team[g.team];
    team.team = g.team;
    Add(team, part);
    pods[g.team].insert(g.namespace_name + "/" + g.pod);
  }
  out.total.team = "total";
  for (auto& [name, team] : by_team) {
    team.pods = static_cast<int>(pods[name].size());
    if (range_s > 0) team.projected_month_usd = team.cost_usd * kDaysPerMonth * 86400.0 / static_cast<double>(range_s);
    auto budget = budgets.find(name);
    if (budget != budgets.end()) team.budget_usd = budget->second;
    Add(out.total, team);
    out.total.pods += team.pods;
    out.teams.push_back(team);
  }
  if (range_s > 0)
    out.total.projected_month_usd = out.total.cost_usd * kDaysPerMonth * 86400.0 / static_cast<double>(range_s);
  std::stable_sort(out.teams.begin(), out.teams.end(),
                   [](const TeamCharge& a, const TeamCharge& b) { return a.cost_usd > b.cost_usd; });
  out.unpriced_models.assign(unpriced.begin(), unpriced.end());
  return out;
}

Result<std::map<std::string, double>> ParseBudgets(std::string_view text, const std::string& origin) {
  CsvReader reader(text);
  std::vector<std::string> fields;
  std::map<std::string, double> budgets;
  int team_column = -1, usd_column = -1;
  while (reader.Next(&fields)) {
    std::string where = origin + ":" + std::to_string(reader.line()) + ": ";
    if (reader.unterminated_quote()) return InvalidInput(where + "unterminated quoted field");
    std::string_view first = Trim(fields[0]);
    if ((fields.size() == 1 && first.empty()) || StartsWith(first, "#")) continue;
    if (team_column < 0) {
      for (size_t i = 0; i < fields.size(); ++i) {
        std::string name = ToLower(Trim(fields[i]));
        if (name == "team") team_column = static_cast<int>(i);
        if (name == "monthly_usd") usd_column = static_cast<int>(i);
      }
      if (team_column < 0 || usd_column < 0) return InvalidInput(where + "the header must name team and monthly_usd");
      continue;
    }
    if (budgets.size() >= 100'000) return InvalidInput(where + "more than 100000 budgets");
    size_t need = static_cast<size_t>(std::max(team_column, usd_column));
    if (fields.size() <= need) return InvalidInput(where + "expected " + std::to_string(need + 1) + " fields");
    std::string team(Trim(fields[static_cast<size_t>(team_column)]));
    if (team.empty()) return InvalidInput(where + "team is empty");
    std::string usd(Trim(fields[static_cast<size_t>(usd_column)]));
    auto value = ParseBoundedNumber(usd, 0, 1e12);
    if (!value) return InvalidInput(where + "monthly_usd '" + usd + "' is not a number in [0, 1e12]");
    if (!budgets.emplace(team, *value).second) return InvalidInput(where + "team '" + team + "' is listed twice");
  }
  if (team_column < 0) return InvalidInput(origin + ": no header line (team,monthly_usd)");
  return budgets;
}

}  // namespace kraken::cost
