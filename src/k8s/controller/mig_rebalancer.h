// MIG rebalancing in the controller (`kraken annotate --every`, docs/mig-rebalancing.md):
// per node, the layout measured demand asks for goes through the hysteresis of
// analysis/mig/mig_rebalance.h, whose state is kept on the node itself
// (kraken.io/mig-rebalance), so a restarted controller carries on. The outcome is written
// as kraken.io/mig-recommendation; with --apply-mig a change is also written as the
// nvidia.com/mig.config label, which the GPU operator's mig-manager applies (its
// mig-parted config file must hold a configuration of that name).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "analysis/mig/mig_rebalance.h"
#include "analysis/mig/peak_ahead.h"
#include "base/status.h"
#include "k8s/client/kube_client.h"

namespace kraken::k8s {

inline constexpr char kMigRebalanceKey[] = "kraken.io/mig-rebalance";
inline constexpr char kMigRecommendationKey[] = "kraken.io/mig-recommendation";
inline constexpr char kMigConfigLabel[] = "nvidia.com/mig.config";

// "v1;pending=<layout>;since=<unix s>;changed=<unix s>" (absent parts omitted).
std::string FormatRebalanceState(const mig::RebalanceState& state);
// An unreadable or other-version value is an empty state (the hold starts again).
mig::RebalanceState ParseRebalanceState(std::string_view text);

struct MigRebalanceResult {
  mig::RebalanceDecision decision;
  std::string current;    // the layout the decision compared with
  bool labelled = false;  // nvidia.com/mig.config written
};

// With `annotate --mig-forecast`: the node's demand per profile and its forecast, so that a
// layout is proposed ahead of a forecast rise (analysis/mig/peak_ahead.h).
struct MigForecastInput {
  std::map<std::string, int> wanted;  // the measured demand `wanted` names
  std::map<std::string, mig::InstanceForecast> forecasts;
  int64_t lookahead_s = 3600;
};

// GETs the node; its current layout is its nvidia.com/mig.config label, else kraken's
// measured kraken.io/mig-layout label; decides (DecideRebalanceAhead when `ahead` is
// given, else DecideRebalance); writes the state and the recommendation (only what
// changed) and, with `apply_mig` and a change, the nvidia.com/mig.config label.
Result<MigRebalanceResult> RebalanceNodeMig(const KubeClient& client, const std::string& node, const std::string& wanted,
                                            int64_t now_s, const mig::RebalanceOptions& options, bool apply_mig,
                                            const MigForecastInput* ahead = nullptr);

}  // namespace kraken::k8s
