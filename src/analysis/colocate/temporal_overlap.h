// How often two workloads want the GPU at the same time, from their busy profiles over
// time (WorkloadDemand::busy_bins). Two workloads that each keep the GPU busy half the
// time collide a quarter of the time when their phases are unrelated, and never when
// their busy windows interleave; only collisions cost anything under time-slicing.
#pragma once

#include <string>
#include <vector>

#include "analysis/colocate/colocation_parameters.h"
#include "model/colocation.h"

namespace kraken {

// Repeat period (seconds) of a busy profile: the lag of the first autocorrelation peak
// that reaches `min_autocorr`; 0 when the profile does not repeat (or is too short).
double DetectPeriodSeconds(const std::vector<double>& bins, double bin_s, double min_autocorr);

// Averages consecutive bins so that a profile of `bin_s` bins becomes one of about
// `target_s` bins (target_s >= bin_s).
std::vector<double> Rebin(const std::vector<double>& bins, double bin_s, double target_s);

struct CollisionEstimate {
  double random_phase = 0;  // P(b busy | a busy) for unrelated phases: b's busy fraction
  double locked_phase = 0;  // the same at the best relative phase of the two profiles
  bool phase_locked = false;  // periods match: round-robin settles into the best phase
  double q = 0;             // the value the model uses
  // Time-slicing at the locked phase: P(b has work queued | a busy), b's bins in which it
  // ran anything standing for "has work" (a launch-bound co-runner busy 18 % of a bin still
  // has its next kernel queued). Only phase_locked estimates set it; MPS keeps q.
  double locked_active = 0;
  std::string basis;
};

// Fraction of the busy profile's bins in which the workload ran anything (its busy
// fraction when it has no profile): how often it has work queued for the GPU, as opposed
// to how much of the time its kernels run. A launch-bound inference busy 18 % of the time
// launches in nearly every millisecond.
double ActiveShare(const ColocationWorkload& w);

// Time-slicing: how long a co-runner busy `busy` of its time and active `active` of it
// keeps the GPU once it gets it. While it waited for a slice (+ two switches) it queued
// busy/active of that time in GPU work per second; it runs that and, working through what
// it launches meanwhile, settles at x = i/(1 - i) x (slice + 2 switches), i = busy/active;
// a full slice from i >= 1/2 on.
double BacklogHoldSeconds(double busy, double active, double slice_s, double switch_s);

// P(b busy | a busy). Phases are taken as unrelated unless both profiles repeat with
// the same period (within params.period_match_tolerance): then collisions shift the
// phases and non-collisions do not, so the pair settles at the phase of least overlap.
CollisionEstimate EstimateCollision(const ColocationWorkload& a, const ColocationWorkload& b,
                                    const ColocationParameters& params);

}  // namespace kraken
