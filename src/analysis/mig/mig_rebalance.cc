#include "analysis/mig/mig_rebalance.h"

namespace kraken::mig {
namespace {

std::string Minutes(int64_t seconds) { return std::to_string(seconds / 60) + " min"; }

}  // namespace

std::map<std::string, int> PlanInstances(const MigPlan& plan) {
  std::map<std::string, int> instances;
  if (plan.geometry == nullptr) return instances;
  for (const MigChoice& c : plan.choices)
    if (c.sliced && c.profile >= 0 && static_cast<size_t>(c.profile) < plan.geometry->profiles.size())
      ++instances[plan.geometry->profiles[static_cast<size_t>(c.profile)].name];
  return instances;
}

const char* RebalanceActionName(RebalanceAction action) {
  switch (action) {
    case RebalanceAction::kKeep: return "keep";
    case RebalanceAction::kHold: return "hold";
    case RebalanceAction::kRateLimited: return "rate-limited";
    case RebalanceAction::kChange: return "change";
  }
  return "keep";
}

RebalanceDecision DecideRebalance(const RebalanceState& state, const std::string& current, const std::string& wanted,
                                  int64_t now_s, const RebalanceOptions& options) {
  RebalanceDecision d;
  d.layout = wanted;
  d.next = state;
  if (wanted.empty() || wanted == current) {
    d.action = RebalanceAction::kKeep;
    d.next.pending.clear();
    d.next.pending_since_s = -1;
    d.reason = wanted.empty() ? "no MIG demand measured on the node" : "demand asks for the current layout " + current;
    return d;
  }
  if (state.pending != wanted || state.pending_since_s < 0 || state.pending_since_s > now_s) {
    // A new wish (or one that changed): the hold starts now.
    d.next.pending = wanted;
    d.next.pending_since_s = now_s;
  }
  const int64_t held = now_s - d.next.pending_since_s;
  if (held < options.hold_s) {
    d.action = RebalanceAction::kHold;
    d.reason = "demand has asked for " + wanted + " instead of " + (current.empty() ? "an unknown layout" : current) +
               " for " + Minutes(held) + " of the " + Minutes(options.hold_s) + " hold";
    return d;
  }
  if (state.last_change_s >= 0 && now_s - state.last_change_s < options.window_s) {
    d.action = RebalanceAction::kRateLimited;
    d.reason = "held " + Minutes(held) + ", but the node's layout was changed " + Minutes(now_s - state.last_change_s) +
               " ago (at most one change per " + Minutes(options.window_s) + ")";
    return d;
  }
  d.action = RebalanceAction::kChange;
  d.reason = "demand has asked for " + wanted + " for " + Minutes(held) + " (hold " + Minutes(options.hold_s) + ")";
  d.next.pending.clear();
  d.next.pending_since_s = -1;
  d.next.last_change_s = now_s;
  return d;
}

}  // namespace kraken::mig
