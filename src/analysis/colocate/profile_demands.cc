#include "analysis/colocate/profile_demands.h"

#include <algorithm>
#include <map>

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "base/text.h"
#include "model/device_catalog.h"

namespace kraken {
namespace {

constexpr std::string_view kOrionDeviceNote =
    "Orion kernel lists name no GPU: using v100-pcie (80 SMs, 900 GB/s), the V100 of Orion's SOURCES.md; the "
    "catalog entry's 32 GiB is not Orion's 16 GB card (--device to change)";

}  // namespace

std::string WorkloadStem(std::string_view name) {
  std::string s(BaseName(name));
  for (bool changed = true; changed;) {
    changed = false;
    for (const char* ext : {".gz", ".json", ".csv", ".txt", ".prom", ".tar"}) {
      if (EndsWith(s, ext) && s.size() > std::string_view(ext).size()) {
        s.resize(s.size() - std::string_view(ext).size());
        changed = true;
      }
    }
  }
  return s;
}

bool IsOrionPlaceholderList(const Profile& p) {
  if (p.metadata.format != "orion-csv" || p.kernels.empty()) return false;
  for (const Kernel& k : p.kernels)
    if (k.duration_ns > 7 || k.grid[0] > 1) return false;
  return true;
}

Status AppendProfileDemands(const Profile& p, const std::string& input, const DeviceSpec* device,
                            ProfileDemands* out) {
  if (IsOrionPlaceholderList(p))
    return InvalidInput(input + ": all " + std::to_string(p.kernels.size()) +
                        " rows are placeholders (7 ns, one block): Orion's *_fb0 lists were not measured "
                        "(docs/analysis-classification.md); use the matching *_fb1 list");
  CharacterizeOptions options;
  options.device = device;
  if (device == nullptr && p.metadata.format == "orion-csv") {
    options.device = FindDeviceSpec("v100-pcie");
    if (std::find(out->notes.begin(), out->notes.end(), kOrionDeviceNote) == out->notes.end())
      out->notes.emplace_back(kOrionDeviceNote);
  }
  std::vector<WorkloadDemand> demands = DeriveDemands(p, CharacterizeWorkload(p, options));
  if (demands.empty()) out->notes.push_back(input + ": nothing to derive a demand from (skipped)");
  for (WorkloadDemand& d : demands) {
    // "path/to/file.csv gpu 0 [load]" -> "file gpu 0 [load]".
    const std::string& source = p.metadata.source;
    std::string suffix = StartsWith(d.name, source) ? d.name.substr(source.size()) : "";
    d.name = WorkloadStem(source) + suffix;
    out->demands.push_back(std::move(d));
  }
  return Status::Ok();
}

void FinishProfileDemands(ProfileDemands* out) {
  std::map<std::string, int> seen;
  for (WorkloadDemand& d : out->demands) {
    int n = ++seen[d.name];
    if (n > 1) d.name += " #" + std::to_string(n);
  }
}

}  // namespace kraken
