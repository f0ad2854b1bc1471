// The NAME=VALUE, size, split and mode parsers of the colocate request.
#include "app/colocate_request.h"

#include <cctype>
#include <cmath>
#include <map>

#include "analysis/colocate/join.h"
#include "base/number_input.h"
#include "base/text.h"

namespace kraken {

Status ApplyNamedValues(const std::vector<std::string>& flags, const std::string& flag_name,
                        const std::vector<WorkloadDemand>& demands, std::vector<double>* values) {
  values->assign(demands.size(), 0.0);
  for (const std::string& flag : flags) {
    size_t eq = flag.rfind('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidInput(flag_name + " expects NAME=VALUE, got '" + flag + "'");
    std::string name(Trim(std::string_view(flag).substr(0, eq)));
    auto value = ParseBoundedNumber(std::string_view(flag).substr(eq + 1), 0, 1e12);
    if (!value || *value <= 0)
      return InvalidInput(flag_name + " expects a positive number after '=', got '" + flag + "'");
    int match = -1;
    auto index = ParseInt64(name);
    for (size_t i = 0; i < demands.size(); ++i) {
      bool hit = demands[i].name == name || WorkloadStem(demands[i].name) == name ||
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
  auto number = ParseBoundedNumber(s.substr(0, split), 0, 1e9);
  std::string unit = ToLower(Trim(s.substr(split)));
  static const std::map<std::string, double> kUnits = {
      {"", 1},         {"b", 1},        {"kb", 1e3},     {"mb", 1e6},     {"gb", 1e9},     {"tb", 1e12},
      {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0}};
  auto it = kUnits.find(unit);
  if (!number || *number <= 0 || !std::isfinite(*number) || it == kUnits.end())
    return InvalidInput("--gpu-memory expects a size such as 80GiB or 16GB, got '" + text + "'");
  return *number * it->second;
}

Result<std::vector<SharingMode>> ParseSharingModes(const std::string& mode) {
  if (mode == "all") return std::vector<SharingMode>{SharingMode::kTimeSlice, SharingMode::kMps, SharingMode::kMig};
  if (mode == "timeslice") return std::vector<SharingMode>{SharingMode::kTimeSlice};
  if (mode == "mps") return std::vector<SharingMode>{SharingMode::kMps};
  if (mode == "mig") return std::vector<SharingMode>{SharingMode::kMig};
  return InvalidInput("--mode must be timeslice, mps, mig or all, got '" + mode + "'");
}

Result<std::vector<double>> ParseSmSplit(const std::string& text, size_t workloads) {
  std::vector<double> shares;
  for (std::string_view part : Split(text, ',')) {
    auto pct = ParseBoundedNumber(part, 0, 100);
    if (!pct || *pct <= 0)
      return InvalidInput("--sm-split expects percentages in (0, 100] separated by commas, got '" + text + "'");
    shares.push_back(*pct / 100.0);
  }
  if (shares.size() != workloads)
    return InvalidInput("--sm-split has " + std::to_string(shares.size()) + " values for " + std::to_string(workloads) +
                        " workloads");
  return shares;
}

}  // namespace kraken
