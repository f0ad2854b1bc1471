// When to change a node's MIG layout (the controller's rebalancing, docs/mig-rebalancing.md
// "Rebalancing"): a layout other than the current one is proposed only after measured
// demand has asked for that same layout for a hold time (hysteresis: demand that flaps
// between two layouts never reaches the hold), and at most once per node per window.
// Pure: the state lives where the caller keeps it (the controller: a node annotation).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "analysis/mig/mig_plan.h"

namespace kraken::mig {

struct RebalanceState {
  std::string pending;            // the layout demand has asked for since pending_since_s
  int64_t pending_since_s = -1;   // -1: nothing pending
  int64_t last_change_s = -1;     // the last proposal kraken made for this node; -1 never
  bool operator==(const RebalanceState&) const = default;
};

struct RebalanceOptions {
  int64_t hold_s = 30 * 60;      // demand must ask for the new layout this long
  int64_t window_s = 24 * 3600;  // at most one change per node per window
};

enum class RebalanceAction {
  kKeep,         // the wanted layout is the current one
  kHold,         // a different layout is wanted, not yet for the hold time
  kRateLimited,  // held long enough, but the node changed less than a window ago
  kChange,       // propose `layout`
};
const char* RebalanceActionName(RebalanceAction action);

struct RebalanceDecision {
  RebalanceAction action = RebalanceAction::kKeep;
  std::string layout;   // the wanted layout
  std::string reason;   // one sentence with the times
  RebalanceState next;  // the state to keep for the next pass
};

// The MIG instances a plan asks for: profile name -> count over its sliced workloads
// (workloads kept whole need no instance).
std::map<std::string, int> PlanInstances(const MigPlan& plan);

// `current`: the layout the node has (the mig-manager's config, else the measured one);
// `wanted`: the layout measured demand asks for now; `now_s`: Unix seconds.
RebalanceDecision DecideRebalance(const RebalanceState& state, const std::string& current, const std::string& wanted,
                                  int64_t now_s, const RebalanceOptions& options = {});

}  // namespace kraken::mig
