// A MIG layout change ahead of a predicted peak (docs/mig-rebalancing.md "Ahead of a
// forecast peak"): per MIG profile, the instances a node's pods held at each step of the
// history go through the forecaster of `kraken temporal --forecast` (AnalyzeTemporal
// chooses the method on rolling origins, ComputeForecastPath gives the values) up to the
// rebalancing window. When its point forecast rises above what the node's current layout
// serves within the lookahead, the layout that serves the window's forecast peak is
// proposed now, before the rise, instead of after the hold on measured demand; at most
// one change per node per window still holds, which is why the proposal serves the
// window's peak and not only the next rise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/mig/mig_rebalance.h"
#include "analysis/temporal/temporal_analysis.h"

namespace kraken::mig {

// A node's MIG demand over time.
struct InstanceHistory {
  std::vector<int64_t> times_s;                       // the query's steps, Unix s
  std::map<std::string, std::vector<double>> counts;  // profile -> instances held at each step
};

// The instances the node's pods held at the last step where any of them answered: the
// demand "now" when the history is read over time (a week's pods together would ask for
// every replica that ever ran). Empty when none answered.
std::map<std::string, int> LatestInstances(const InstanceHistory& history);

struct InstanceForecast {
  std::vector<std::pair<int64_t, int>> points;  // (Unix s, instances): point forecasts to whole instances
  std::string method;                           // the forecaster's chosen method
  std::string reason;                           // why there is none; "" when there is one
};

// Per profile of the history, the forecast from its last step up to `path_s` ahead, with
// the method and parameters the back-test chooses at `select` (the lookahead). Chosen at
// the whole path's length instead, a daily window would pick the naive forecast on a daily
// pattern (y[t] predicts y[t + 1 day] exactly) and carry today's level over the whole day.
std::map<std::string, InstanceForecast> ForecastInstances(const InstanceHistory& history,
                                                          const temporal::Horizon& select, int64_t path_s);

// MigLayoutName's inverse: "3g.40gb-x2.1g.10gb-x1" -> {1g.10gb: 1, 3g.40gb: 2}, "none" -> {};
// nullopt for a name it does not write (mig-parted's "all-1g.5gb", "mixed").
std::optional<std::map<std::string, int>> ParseMigLayoutName(std::string_view name);

// DecideRebalance with the forecast first: when a profile's forecast needs more instances
// than `current` serves within `lookahead_s` of `now_s`, the layout serving, per profile,
// max(wanted, the forecast's peak within the window) is proposed now (no hold: the
// forecaster has already seen the pattern over the history), unless the node changed
// within the window. Otherwise DecideRebalance on the measured `wanted`, except that the
// current layout is not cut below what the window's forecast peak needs of it (the cut
// would spend the window's one change and leave the peak unserved). A `current` that
// ParseMigLayoutName cannot read: DecideRebalance on `wanted` alone.
RebalanceDecision DecideRebalanceAhead(const RebalanceState& state, const std::string& current,
                                       const std::map<std::string, int>& wanted,
                                       const std::map<std::string, InstanceForecast>& forecasts, int64_t now_s,
                                       int64_t lookahead_s, const RebalanceOptions& options = {});

}  // namespace kraken::mig
