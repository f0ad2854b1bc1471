#include "analysis/mig/peak_ahead.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include "analysis/mig/layout_name.h"
#include "analysis/temporal/forecast_path.h"
#include "base/text.h"
#include "model/series.h"

namespace kraken::mig {
namespace {

InstanceForecast NoForecast(std::string reason) {
  InstanceForecast out;
  out.reason = std::move(reason);
  return out;
}

// The forecast of one profile's instance count, as `kraken temporal --forecast` makes it.
InstanceForecast ForecastCounts(const std::vector<int64_t>& times_s, const std::vector<double>& counts,
                                const temporal::Horizon& select, int64_t path_s) {
  Series series;
  series.axis = SampleAxis::kTimeNs;
  series.source_name = "mig_instances";
  for (size_t i = 0; i < times_s.size() && i < counts.size(); ++i)
    series.samples.push_back({times_s[i] * 1'000'000'000, counts[i]});
  temporal::TemporalOptions options;
  options.horizons = {select};
  temporal::TemporalReport report = temporal::AnalyzeTemporal(series, options);
  if (!report.error.empty()) return NoForecast(report.error);
  if (report.forecast.horizons.empty() || !report.forecast.horizons[0].evaluated)
    return NoForecast(report.forecast.horizons.empty() || report.forecast.horizons[0].reason.empty()
                          ? "the lookahead does not apply to this history"
                          : report.forecast.horizons[0].reason);
  const temporal::HorizonEvaluation& h = report.forecast.horizons[0];
  const size_t path_steps = static_cast<size_t>(
      std::max<int64_t>(1, path_s * 1'000'000'000 / std::max<int64_t>(1, report.grid.step)));
  temporal::ForecastPathOptions path_options;
  path_options.max_points = std::max<size_t>(96, path_steps / 3);  // 15-minute strides of a day at 5-minute steps
  temporal::ForecastPath path = temporal::ComputeForecastPath(report.grid, path_steps, h.params, path_options);
  if (path.points.empty()) return NoForecast("too little history for the window");
  InstanceForecast out;
  out.method = temporal::ForecastMethodName(h.params.method);
  // Instances are whole: the nearest count to the point forecast.
  for (const temporal::ForecastPoint& p : path.points)
    out.points.emplace_back(p.at / 1'000'000'000, static_cast<int>(std::max(0L, std::lround(p.value))));
  return out;
}

std::string ClockTime(int64_t unix_s) {
  std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%H:%M UTC", &tm);
  return text;
}

std::string Minutes(int64_t seconds) { return std::to_string(seconds / 60) + " min"; }

// The profile as the layout name writes it ('+' of "1g.10gb+me" is '_' there).
std::string AsInLayout(const std::string& profile) {
  std::string out = profile;
  std::replace(out.begin(), out.end(), '+', '_');
  return out;
}

}  // namespace

std::map<std::string, int> LatestInstances(const InstanceHistory& history) {
  std::map<std::string, int> out;
  for (size_t k = history.times_s.size(); k-- > 0 && out.empty();)
    for (const auto& [profile, counts] : history.counts)
      if (k < counts.size() && counts[k] > 0) out[profile] = static_cast<int>(std::lround(counts[k]));
  return out;
}

std::map<std::string, InstanceForecast> ForecastInstances(const InstanceHistory& history,
                                                          const temporal::Horizon& select, int64_t path_s) {
  std::map<std::string, InstanceForecast> out;
  for (const auto& [profile, counts] : history.counts)
    out[profile] = ForecastCounts(history.times_s, counts, select, path_s);
  return out;
}

std::optional<std::map<std::string, int>> ParseMigLayoutName(std::string_view name) {
  std::map<std::string, int> out;
  if (name == "none") return out;
  size_t at = 0;
  while (at < name.size()) {
    size_t x = name.find("-x", at);
    if (x == std::string_view::npos || x == at) return std::nullopt;
    size_t digits = x + 2, end = digits;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
    std::optional<int64_t> count = ParseInt64(name.substr(digits, end - digits));
    if (!count || *count <= 0 || *count > 64) return std::nullopt;
    out[std::string(name.substr(at, x - at))] = static_cast<int>(*count);
    if (end < name.size() && name[end] != '.') return std::nullopt;
    at = end + 1;
  }
  // Only names MigLayoutName writes (it orders the parts).
  if (out.empty() || MigLayoutName(out) != name) return std::nullopt;
  return out;
}

namespace {

// The method of the forecast of a profile as the layout names it.
std::string ForecastMethodOf(const std::map<std::string, InstanceForecast>& forecasts, const std::string& in_layout) {
  for (const auto& [profile, forecast] : forecasts)
    if (AsInLayout(profile) == in_layout) return forecast.method;
  return "";
}

// When the window's forecast peak is what keeps (part of) the current layout, the reason
// says so instead of crediting measured demand, which alone asks for less.
void NameTheForecastPeak(const std::string& kept_by_forecast, const std::string& current,
                         const std::map<std::string, int>& wanted, int64_t window_s, RebalanceDecision* d) {
  std::map<std::string, int> measured;
  for (const auto& [profile, n] : wanted) measured[AsInLayout(profile)] = n;
  const std::string peak = "the forecast peak of the next " + Minutes(window_s) + " (" + kept_by_forecast + ")";
  if (d->action == RebalanceAction::kKeep) {
    d->reason = peak + " needs the current layout " + current + "; measured demand alone asks for " +
                MigLayoutName(measured);
  } else {
    d->reason += "; not below " + peak;
  }
}

// The first forecast time a profile needs more than `have` instances within the lookahead.
struct Rise {
  std::string profile;
  int64_t at_s = -1;
  int instances = 0;
  int have = 0;
};

}  // namespace

RebalanceDecision DecideRebalanceAhead(const RebalanceState& state, const std::string& current,
                                       const std::map<std::string, int>& wanted,
                                       const std::map<std::string, InstanceForecast>& forecasts, int64_t now_s,
                                       int64_t lookahead_s, const RebalanceOptions& options) {
  std::optional<std::map<std::string, int>> served = ParseMigLayoutName(current);
  if (!served) return DecideRebalance(state, current, wanted.empty() ? "" : MigLayoutName(wanted), now_s, options);
  std::map<std::string, int> window_peak;
  Rise rise;
  for (const auto& [profile, forecast] : forecasts) {
    if (!forecast.reason.empty()) continue;
    auto it = served->find(AsInLayout(profile));
    const int have = it != served->end() ? it->second : 0;
    int& peak = window_peak[AsInLayout(profile)];
    for (const auto& [at_s, n] : forecast.points) {
      if (at_s - now_s > options.window_s) break;
      peak = std::max(peak, n);
      if (n > have && at_s - now_s <= lookahead_s && (rise.at_s < 0 || at_s < rise.at_s))
        rise = {profile, at_s, n, have};
    }
  }
  std::map<std::string, int> ahead;  // per profile max(wanted, the window's peak), as the layout names them
  for (const auto& [profile, n] : wanted) ahead[AsInLayout(profile)] = n;
  for (const auto& [profile, n] : window_peak) ahead[profile] = std::max(ahead[profile], n);
  const std::string layout = MigLayoutName(ahead);
  if (rise.at_s < 0 || layout == current) {
    // No rise within the lookahead: measured demand, but the current layout is not cut
    // below what the window's forecast peak needs (a cut now would use the window's one
    // change and leave the peak unserved).
    std::map<std::string, int> target;
    for (const auto& [profile, n] : wanted) target[AsInLayout(profile)] = n;
    std::string kept_by_forecast;  // "1g.10gb: 2 instances by seasonal-naive" per profile the forecast keeps
    for (const auto& [profile, have] : *served) {
      auto peak = window_peak.find(profile);
      const int needed = std::min(have, peak != window_peak.end() ? peak->second : 0);
      if (needed <= target[profile]) continue;
      target[profile] = needed;
      if (!kept_by_forecast.empty()) kept_by_forecast += ", ";
      kept_by_forecast +=
          profile + ": " + std::to_string(needed) + " instances by " + ForecastMethodOf(forecasts, profile);
    }
    std::string name = MigLayoutName(target);
    RebalanceDecision d = DecideRebalance(state, current, name == "none" && wanted.empty() ? "" : name, now_s, options);
    if (!kept_by_forecast.empty()) NameTheForecastPeak(kept_by_forecast, current, wanted, options.window_s, &d);
    return d;
  }
  std::string why = "the forecast (" + forecasts.at(rise.profile).method + ") has " + rise.profile + " demand at " +
                    std::to_string(rise.instances) + " instances at " + ClockTime(rise.at_s) + " (in " +
                    Minutes(rise.at_s - now_s) + "), above the " + std::to_string(rise.have) + " " + current +
                    " serves; " + layout + " serves the forecast peak of the next " + Minutes(options.window_s);
  RebalanceDecision d;
  d.layout = layout;
  d.next = state;
  if (state.last_change_s >= 0 && now_s - state.last_change_s < options.window_s) {
    d.action = RebalanceAction::kRateLimited;
    d.reason = why + ", but the node's layout was changed " + Minutes(now_s - state.last_change_s) +
               " ago (at most one change per " + Minutes(options.window_s) + ")";
    return d;
  }
  d.action = RebalanceAction::kChange;
  d.reason = why + "; proposed ahead of the rise";
  d.next.pending.clear();
  d.next.pending_since_s = -1;
  d.next.last_change_s = now_s;
  return d;
}

}  // namespace kraken::mig
