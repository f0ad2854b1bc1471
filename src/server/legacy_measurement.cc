// Legacy profiles from kraken's measurements: Orion's labelled kernel lists and any
// profile in the store (an import or an upload).
#include <algorithm>
#include <cstdio>

#include "analysis/arithmetic_intensity.h"
#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "server/legacy_profiles.h"

namespace kraken::server {
namespace {

std::string TypeOfShares(double compute, double memory) {
  if (compute >= 0.5) return "COMPUTE_BOUND";
  if (memory >= 0.5) return "MEMORY_BOUND";
  return "MIXED";
}

std::string FormatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

// Orion's labels when the profile carries them: true when they covered any kernel time.
bool SetOrionShares(const Profile& p, LegacyProfile* out) {
  double compute = 0, memory = 0, neither = 0;
  // The importer writes one label per kernel, in the same order.
  for (size_t i = 0; i < p.kernels.size() && i < p.kernel_labels.size(); ++i) {
    if (p.kernel_labels[i].source != "orion") return false;
    double duration = static_cast<double>(std::max<int64_t>(0, p.kernels[i].duration_ns));
    const std::string& label = p.kernel_labels[i].label;
    if (label == "1") compute += duration;
    else if (label == "0") memory += duration;
    else neither += duration;
  }
  double total = compute + memory + neither;
  if (total <= 0) return false;
  out->compute_ratio = compute / total;
  out->memory_ratio = memory / total;
  out->mixed_ratio = neither / total;
  out->kernel_type = TypeOfShares(out->compute_ratio, out->memory_ratio);
  return true;
}

// kraken's own classification (docs/analysis-classification.md): compute- and
// memory-bound shares of kernel time; latency-bound and unclassified time is "mixed".
bool SetClassifiedShares(const Profile& p, LegacyProfile* out) {
  WorkloadReport report = CharacterizeWorkload(p);
  std::vector<WorkloadDemand> demands = DeriveDemands(p, report);
  if (demands.empty()) return false;
  const WorkloadDemand& d = demands.front();
  if (d.compute_bound_share + d.memory_bound_share + d.latency_bound_share <= 0) return false;
  out->compute_ratio = std::clamp(d.compute_bound_share, 0.0, 1.0);
  out->memory_ratio = std::clamp(d.memory_bound_share, 0.0, 1.0 - out->compute_ratio);
  out->mixed_ratio = 1.0 - out->compute_ratio - out->memory_ratio;
  out->kernel_type = TypeOfShares(out->compute_ratio, out->memory_ratio);
  return true;
}

}  // namespace

LegacyProfile LegacyProfileFromOrion(std::shared_ptr<const Profile> profile) {
  LegacyProfile out;
  out.measured = SetOrionShares(*profile, &out);
  out.source = "measured";
  out.profile = std::move(profile);
  return out;
}

LegacyProfile LegacyProfileFromStored(std::shared_ptr<const Profile> profile, int64_t stored_id) {
  LegacyProfile out;
  std::string name = "stored profile " + std::to_string(stored_id) + " (" + profile->metadata.source + ")";
  bool orion = SetOrionShares(*profile, &out);
  bool shares = orion || SetClassifiedShares(*profile, &out);
  std::string ratios = !shares ? "no classified kernel time: ratios 0, UNKNOWN"
                       : orion ? "ratios from Orion's kernel labels"
                               : "ratios from kraken's kernel classification";
  std::string intensity;
  if (std::optional<WorkloadIntensity> measured = MeasureWorkloadIntensity(*profile)) {
    out.arithmetic_intensity = measured->arithmetic_intensity();
    intensity = "arithmetic_intensity measured: " + FormatNumber(measured->flops) + " FLOP / " +
                FormatNumber(measured->dram_bytes) + " DRAM bytes of " + std::to_string(measured->measured) +
                " kernels";
  } else {
    intensity = "arithmetic_intensity unknown (0): the profile has no FLOP and DRAM byte counts";
  }
  out.data_source = name + "; " + ratios + "; " + intensity;
  out.source = "measured";
  out.measured = shares;
  out.stored_profile_id = stored_id;
  out.input_name = "profile " + std::to_string(stored_id);
  out.profile = std::move(profile);
  return out;
}

}  // namespace kraken::server
