#include "cli/colocate_inputs.h"

#include <cctype>
#include <cmath>
#include <map>

#include "analysis/characterize.h"
#include "analysis/colocate/join.h"
#include "analysis/demand.h"
#include "base/text.h"
#include "importers/registry.h"
#include "model/device_catalog.h"

namespace kraken::cli {
namespace {

// File name without directories and without trailing known extensions.
std::string Stem(std::string_view name) {
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

// Orion's *_fb0 files hold one "-1,1,1,7" row per operator: nothing was measured.
bool IsOrionPlaceholderList(const Profile& p) {
  if (p.metadata.format != "orion-csv" || p.kernels.empty()) return false;
  for (const Kernel& k : p.kernels)
    if (k.duration_ns > 7 || k.grid[0] > 1) return false;
  return true;
}

}  // namespace

Result<LoadedWorkloads> LoadDemands(const std::vector<std::string>& files, const DeviceSpec* device) {
  LoadedWorkloads out;
  const DeviceSpec* v100 = FindDeviceSpec("v100-pcie");
  bool noted_orion = false;
  for (const std::string& file : files) {
    auto result = ImportFile(BuiltinImporters(), file);
    if (!result.ok()) return result.status();
    for (const Profile& p : *result) {
      if (IsOrionPlaceholderList(p))
        return InvalidInput(file + ": all " + std::to_string(p.kernels.size()) +
                            " rows are placeholders (7 ns, one block): Orion's *_fb0 lists were not measured "
                            "(docs/analysis-classification.md); use the matching *_fb1 list");
      CharacterizeOptions options;
      options.device = device;
      if (device == nullptr && p.metadata.format == "orion-csv") {
        options.device = v100;
        if (!noted_orion) {
          out.notes.push_back("Orion kernel lists name no GPU: using v100-pcie (80 SMs, 900 GB/s), the V100 of "
                              "Orion's SOURCES.md; the catalog entry's 32 GiB is not Orion's 16 GB card (--device "
                              "to change)");
          noted_orion = true;
        }
      }
      std::vector<WorkloadDemand> demands = DeriveDemands(p, CharacterizeWorkload(p, options));
      if (demands.empty()) out.notes.push_back(file + ": nothing to derive a demand from (skipped)");
      for (WorkloadDemand& d : demands) {
        // "path/to/file.csv gpu 0 [load]" -> "file gpu 0 [load]".
        const std::string& source = p.metadata.source;
        std::string suffix = StartsWith(d.name, source) ? d.name.substr(source.size()) : "";
        d.name = Stem(source) + suffix;
        out.demands.push_back(std::move(d));
      }
    }
  }
  std::map<std::string, int> seen;
  for (WorkloadDemand& d : out.demands) {
    int n = ++seen[d.name];
    if (n > 1) d.name += " #" + std::to_string(n);
  }
  return out;
}

Status ApplyNamedValues(const std::vector<std::string>& flags, const std::string& flag_name,
                        const std::vector<WorkloadDemand>& demands, std::vector<double>* values) {
  values->assign(demands.size(), 0.0);
  for (const std::string& flag : flags) {
    size_t eq = flag.rfind('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidInput(flag_name + " expects NAME=VALUE, got '" + flag + "'");
    std::string name(Trim(std::string_view(flag).substr(0, eq)));
    auto value = ParseDouble(Trim(std::string_view(flag).substr(eq + 1)));
    if (!value || !std::isfinite(*value) || *value <= 0)
      return InvalidInput(flag_name + " expects a positive number after '=', got '" + flag + "'");
    int match = -1;
    auto index = ParseInt64(name);
    for (size_t i = 0; i < demands.size(); ++i) {
      bool hit = demands[i].name == name || Stem(demands[i].name) == name ||
                 (index && *index == static_cast<int64_t>(i) + 1);
      if (!hit) continue;
      if (match >= 0) return InvalidInput(flag_name + ": '" + name + "' names more than one workload; use its position");
      match = static_cast<int>(i);
    }
    if (match < 0) {
      std::vector<std::string> known;
      for (const WorkloadDemand& d : demands) known.push_back(d.name);
      return InvalidInput(flag_name + ": no workload named '" + name + "' (workloads: " + JoinText(known, ", ") + ")");
    }
    (*values)[static_cast<size_t>(match)] = *value;
  }
  return Status::Ok();
}

Result<double> ParseByteSize(const std::string& text) {
  std::string_view s = Trim(text);
  size_t split = 0;
  while (split < s.size() && (std::isdigit(static_cast<unsigned char>(s[split])) || s[split] == '.' ||
                              s[split] == 'e' || s[split] == 'E' || s[split] == '+'))
    ++split;
  auto number = ParseDouble(s.substr(0, split));
  std::string unit = ToLower(Trim(s.substr(split)));
  static const std::map<std::string, double> kUnits = {
      {"", 1},         {"b", 1},        {"kb", 1e3},     {"mb", 1e6},     {"gb", 1e9},     {"tb", 1e12},
      {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0}};
  auto it = kUnits.find(unit);
  if (!number || *number <= 0 || !std::isfinite(*number) || it == kUnits.end())
    return InvalidInput("--gpu-memory expects a size such as 80GiB or 16GB, got '" + text + "'");
  return *number * it->second;
}

Result<std::vector<double>> ParseSmSplit(const std::string& text, size_t workloads) {
  std::vector<double> shares;
  for (std::string_view part : Split(text, ',')) {
    auto pct = ParseDouble(Trim(part));
    if (!pct || !std::isfinite(*pct) || *pct <= 0 || *pct > 100)
      return InvalidInput("--sm-split expects percentages in (0, 100] separated by commas, got '" + text + "'");
    shares.push_back(*pct / 100.0);
  }
  if (shares.size() != workloads)
    return InvalidInput("--sm-split has " + std::to_string(shares.size()) + " values for " + std::to_string(workloads) +
                        " workloads");
  return shares;
}

}  // namespace kraken::cli
