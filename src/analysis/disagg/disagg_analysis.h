// Disaggregation analysis of one workload: a 0-1 score of how well it suits pooled,
// shared or remote GPUs, with its three parts (compute-memory decoupling, network
// sensitivity, temporal stability), the sharing strategy kraken recommends, the
// performance impact of that strategy as a range, and the GPU-hours and money it frees.
// Every figure carries its inputs, formula parts and assumptions (docs/disaggregation.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/characterize.h"
#include "analysis/disagg/decoupling.h"
#include "analysis/disagg/network_model.h"
#include "analysis/disagg/remote_link.h"
#include "analysis/temporal/stability.h"
#include "analysis/explanation.h"
#include "analysis/mig/gpu_need.h"
#include "model/profile.h"
#include "model/workload_demand.h"

namespace kraken::disagg {

using temporal::TemporalStability;

struct DisaggOptions {
  std::vector<RemoteLink> links;     // the first is scored; empty = DefaultRemoteLinks()
  double price_per_gpu_hour = 2.50;  // $ per GPU-hour
  double hours_per_month = 730;
  // Score: weights of the parts (renormalised over the parts that were measured), and the
  // modelled slowdown at which the network part reaches 0.
  double weight_decoupling = 1;
  double weight_network = 1;
  double weight_temporal = 1;
  double network_tolerance = 0.25;
  // Strategy rules, in the order they are tried (docs/disaggregation.md).
  double dedicated_need = 0.80;      // needs this much of a GPU (compute p95 or memory)
  double comm_heavy_share = 0.30;    // collectives' share of busy time
  double remote_max_slowdown = 0.05; // high end at the scored link
  double remote_min_score = 0.60;
  double mig_min_predictability = 0.60;
  double mps_max_compute = 0.50;     // compute need p95
  double shared_max_busy = 0.50;     // mean busy for time slicing
  double mig_headroom = 0.10;        // memory headroom when choosing the MIG slice
  // Expected slowdown a MIG slice may cost (--max-slowdown): a policy choice, the slowdown
  // a user would accept for pooling; a slice that costs more is not recommended.
  double mig_max_slowdown = 0.10;
};

enum class Strategy { kDedicated, kTimeSliced, kMpsShare, kMigSlice, kRemotePool };
std::string_view StrategyName(Strategy strategy);  // "dedicated", "time-sliced", "MPS share", ...

struct ImpactRange {  // slowdown: added time / time today
  double expected = 0;
  double lo = 0;
  double hi = 0;
};

struct DisaggSection {
  std::string title;  // "decoupling", "network", "temporal", "score", "strategy", "savings"
  Explanation explanation;
};

struct DisaggResult {
  std::string workload;
  std::string source_kind;
  std::string workload_type;
  std::string device_id;
  GpuNeed need;

  Decoupling decoupling;
  TrafficProfile traffic;
  std::vector<LinkSensitivity> links;  // one per link, the scored one first
  bool network_measured = false;
  double network_part = 0;
  TemporalStability temporal;
  double temporal_part = 0;

  double score = 0;
  int parts_measured = 0;

  Strategy strategy = Strategy::kDedicated;
  std::string strategy_reason;
  std::string mig_profile;  // for kMigSlice
  double mig_max_slowdown = 0;  // the expected-slowdown budget a MIG slice was held to
  ImpactRange impact;

  // Fraction of one GPU the workload still blocks under the strategy (low/high demand),
  // the GPU-hours that frees per hour of the workload, and what that is worth.
  double gpu_fraction_lo = 1;
  double gpu_fraction_hi = 1;
  double freed_lo = 0;
  double freed_hi = 0;
  double price_per_gpu_hour = 0;
  double savings_per_hour_lo = 0;
  double savings_per_hour_hi = 0;
  double savings_per_month_lo = 0;
  double savings_per_month_hi = 0;

  std::vector<DisaggSection> sections;  // --explain
};

DisaggResult AnalyzeDisaggregation(const Profile& profile, const WorkloadReport& report, const WorkloadDemand& demand,
                                   const DisaggOptions& options = {});

}  // namespace kraken::disagg
