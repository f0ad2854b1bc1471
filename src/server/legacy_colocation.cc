// GET /colocation's answer for two legacy profiles: kraken's demand-vector model when both
// have measured kernel lists, else the class-pair table with an SM split by SM demand, and
// the legacy service's neutral answer when a workload is UNKNOWN.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/profile_demands.h"
#include "app/colocate_request.h"
#include "server/legacy_profiles.h"

namespace kraken::server {
namespace {

// The class-pair table's names for the legacy kernel types.
std::string WorkClassOf(const std::string& kernel_type) {
  if (kernel_type == "COMPUTE_BOUND") return "compute";
  if (kernel_type == "MEMORY_BOUND") return "memory";
  if (kernel_type == "MIXED") return "mixed";
  return "unknown";
}

void SplitEqually(LegacyColocation* out) {
  out->sm_a = out->sm_total / 2;
  out->sm_b = out->sm_total - out->sm_a;
}

// Splits the SMs in proportion to each workload's SM demand: the share of its kernel time
// that an MPS SM cap slows down. Compute-bound time scales with the SMs it gets;
// memory-bound time is held by DRAM bandwidth, which both workloads share whatever the
// split (a memory-bound kernel reaches the bandwidth roof with a fraction of the SMs), so
// it asks for none; mixed (latency-bound, unclassified) time sits between the roofs and
// counts half. Each side keeps at least an eighth of the SMs so that neither is starved.
void SplitByDemand(const LegacyProfile& a, const LegacyProfile& b, LegacyColocation* out) {
  double demand_a = a.compute_ratio + 0.5 * a.mixed_ratio;
  double demand_b = b.compute_ratio + 0.5 * b.mixed_ratio;
  if (demand_a + demand_b <= 0) {
    SplitEqually(out);
    out->notes.push_back("sm_partition: equal shares (neither workload has compute or mixed time)");
    return;
  }
  int floor_sms = std::max(1, out->sm_total / 8);
  int sm_a = static_cast<int>(std::lround(out->sm_total * demand_a / (demand_a + demand_b)));
  out->sm_a = std::clamp(sm_a, std::min(floor_sms, out->sm_total), std::max(0, out->sm_total - floor_sms));
  out->sm_b = out->sm_total - out->sm_a;
  char demands[64];
  std::snprintf(demands, sizeof(demands), "%.4g : %.4g", demand_a, demand_b);
  out->notes.push_back("sm_partition: " + std::to_string(out->sm_total) +
                       " SMs in proportion to SM demand (compute_ratio + mixed_ratio/2): " + demands);
}

// Both measured: the demand-vector model of docs/colocation.md, as `kraken colocate` runs it,
// on --device when one was given (else the GPU the lists name).
std::optional<LegacyColocation> MeasuredColocation(const LegacyProfile& a, const LegacyProfile& b,
                                                   const LegacyConfig& config) {
  ProfileDemands demands;
  if (!AppendProfileDemands(*a.profile, a.input_name, config.device, &demands).ok() ||
      !AppendProfileDemands(*b.profile, b.input_name, config.device, &demands).ok() || demands.demands.size() != 2)
    return std::nullopt;
  FinishProfileDemands(&demands);
  ColocateSettings settings;  // `kraken colocate A B` with its defaults (app/colocate_request.h)
  auto setup = MakeColocateSetup(settings);
  if (!setup.ok()) return std::nullopt;
  if (config.device != nullptr) setup->device = config.device;
  auto inputs = PrepareColocation(demands, settings, *setup);
  if (!inputs.ok()) return std::nullopt;
  ColocationReport report = PredictColocation(inputs->workloads, inputs->options);
  if (report.pairs.empty()) return std::nullopt;
  LegacyColocation out;
  out.model = "measured";
  out.sm_total = config.sm_total;
  out.notes = demands.notes;
  out.notes.insert(out.notes.end(), inputs->device_notes.begin(), inputs->device_notes.end());
  const PairScore& pair = report.pairs.front();
  out.score = pair.score;
  out.notes.push_back(pair.explanation);
  if (inputs->target != nullptr) out.device = inputs->target->id;
  // The model's MPS shares are fractions of the GPU: applied to the SMs this server splits.
  if (pair.sm_split.size() == 2 && pair.sm_split[0] + pair.sm_split[1] > 0) {
    double share_a = pair.sm_split[0] / (pair.sm_split[0] + pair.sm_split[1]);
    out.sm_a = static_cast<int>(std::lround(share_a * out.sm_total));
    out.sm_b = out.sm_total - out.sm_a;
  } else {
    SplitEqually(&out);
    out.notes.push_back("no MPS split predicted: equal shares");
  }
  return out;
}

LegacyColocation ClassTableColocation(const LegacyProfile& a, const LegacyProfile& b, const LegacyConfig& config) {
  LegacyColocation out;
  out.model = "class-table";
  out.sm_total = config.sm_total;
  if (config.device != nullptr) out.device = config.device->id;
  out.score = ClassTableScore(WorkClassOf(a.kernel_type), WorkClassOf(b.kernel_type));
  out.notes.push_back("class-pair table (docs/colocation.md): at least one workload has no measured kernel list; "
                      "the score depends only on the two kernel types and no slowdown is predicted");
  SplitByDemand(a, b, &out);
  return out;
}

// What the legacy service answered when it did not know a workload: a neutral score and
// an equal split, so that a scheduler neither prefers nor avoids the pair.
LegacyColocation UnknownColocation(const LegacyConfig& config) {
  LegacyColocation out;
  out.model = "unknown";
  out.sm_total = config.sm_total;
  if (config.device != nullptr) out.device = config.device->id;
  out.score = 0.5;
  SplitEqually(&out);
  out.notes.push_back("a workload is UNKNOWN (not registered or not classified): the legacy service's neutral "
                      "score 0.5 and an equal split");
  return out;
}

std::string Recommendation(double score) {
  if (score > 0.6) return "good";
  if (score > 0.4) return "moderate";
  return "poor";
}

}  // namespace

LegacyColocation ColocateLegacyProfiles(const LegacyProfile& a, const LegacyProfile& b, const LegacyConfig& config) {
  std::optional<LegacyColocation> result;
  if (a.kernel_type == "UNKNOWN" || b.kernel_type == "UNKNOWN") result = UnknownColocation(config);
  else if (a.profile != nullptr && b.profile != nullptr && a.measured && b.measured)
    result = MeasuredColocation(a, b, config);
  if (!result) result = ClassTableColocation(a, b, config);
  result->type_a = a.kernel_type;
  result->type_b = b.kernel_type;
  result->recommendation = Recommendation(result->score);
  return *result;
}

}  // namespace kraken::server
