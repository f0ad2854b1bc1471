#include "promql/query_plan.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <string>

namespace kraken::promql {
namespace {

// Seconds per unit; 0 for milliseconds, which are handled apart.
std::optional<int64_t> UnitSeconds(std::string_view unit) {
  if (unit == "ms") return 0;
  if (unit == "s") return 1;
  if (unit == "m") return 60;
  if (unit == "h") return 3600;
  if (unit == "d") return 86400;
  if (unit == "w") return 7 * 86400;
  if (unit == "y") return 365 * 86400;
  return std::nullopt;
}

}  // namespace

Result<int64_t> ParsePromDurationSeconds(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return InvalidInput("duration '" + std::string(text) + "': " + why + " (examples: 7d, 1h30m, 90s)");
  };
  if (text.empty()) return bad("empty");
  int64_t total_ms = 0;
  size_t i = 0;
  constexpr int64_t kMaxMs = std::numeric_limits<int64_t>::max() / 2;
  while (i < text.size()) {
    size_t digits_start = i;
    int64_t number = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      number = number * 10 + (text[i] - '0');
      if (number > kMaxMs / 1000) return bad("too long");
      ++i;
    }
    if (i == digits_start) return bad("expected a number");
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::optional<int64_t> unit = UnitSeconds(text.substr(unit_start, i - unit_start));
    if (!unit) return bad("unknown unit '" + std::string(text.substr(unit_start, i - unit_start)) + "'");
    int64_t unit_ms = *unit == 0 ? 1 : *unit * 1000;
    if (number > kMaxMs / unit_ms) return bad("too long");
    total_ms += number * unit_ms;
    if (total_ms > kMaxMs) return bad("too long");
  }
  if (total_ms % 1000 != 0) return bad("kraken needs whole seconds");
  if (total_ms == 0) return bad("must be positive");
  return total_ms / 1000;
}

Result<QueryPlan> PlanRangeQuery(int64_t end_s, int64_t range_s, int64_t step_s, int64_t points_per_window) {
  if (range_s <= 0) return InvalidInput("--range must be positive");
  if (step_s < 0) return InvalidInput("--step must be positive");
  if (points_per_window < 1 || points_per_window > kServerMaxPointsPerSeries)
    return InvalidInput("points per window must be 1.." + std::to_string(kServerMaxPointsPerSeries));
  QueryPlan plan;
  if (step_s == 0) {
    int64_t budget = kAutoMaxWindows * points_per_window;
    plan.step_s = std::max(kAutoStepFloorS, (range_s + budget - 1) / budget);
  } else {
    plan.step_s = step_s;
  }
  if (plan.step_s > range_s) return InvalidInput("--step is longer than --range");
  // Instants start, start+step, ... up to end; the first one is the range's start.
  int64_t start_s = end_s - range_s;
  int64_t instants = range_s / plan.step_s + 1;
  for (int64_t done = 0; done < instants;) {
    QueryWindow w;
    w.start_s = start_s + done * plan.step_s;
    w.points = std::min(points_per_window, instants - done);
    w.end_s = w.start_s + (w.points - 1) * plan.step_s;
    plan.windows.push_back(w);
    done += w.points;
  }
  plan.total_points = instants;
  return plan;
}

}  // namespace kraken::promql
