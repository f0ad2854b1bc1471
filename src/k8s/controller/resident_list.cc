#include "k8s/controller/resident_list.h"

#include <algorithm>
#include <optional>

#include "base/text.h"
#include "k8s/client/demand_annotation.h"

namespace kraken::k8s {
namespace {

struct Ranked {
  double busy = -1;  // -1: not readable, sorts after every measured value
  std::string text;
};

Ranked Rank(std::string_view entry) {
  Ranked r{-1, std::string(Trim(entry))};
  std::string why;
  std::optional<DemandEntry> parsed = ParseDemandEntry(entry, &why);
  if (parsed && parsed->demand.gpu_busy.measured) r.busy = parsed->demand.gpu_busy.mean;
  return r;
}

}  // namespace

std::string ResidentEntryPod(std::string_view entry) {
  for (std::string_view field : Split(entry, ';')) {
    field = Trim(field);
    if (StartsWith(field, "pod=")) return std::string(Trim(field.substr(4)));
  }
  return "";
}

std::string ResidentEntryNamespace(std::string_view entry) {
  std::string pod = ResidentEntryPod(entry);
  size_t slash = pod.find('/');
  return slash == std::string::npos ? "" : pod.substr(0, slash);
}

ResidentListUpdate UpdateResidentList(std::string_view current, const std::vector<std::string>& listed_now,
                                      const std::set<std::string>& analysed) {
  ResidentListUpdate update;
  std::set<std::string> pods_now;
  std::vector<Ranked> entries;
  for (const std::string& entry : listed_now) {
    pods_now.insert(ResidentEntryPod(entry));
    entries.push_back(Rank(entry));
  }
  if (Trim(current) != "none") {
    for (std::string_view entry : Split(current, ',')) {
      if (Trim(entry).empty()) continue;
      const std::string namespace_name = ResidentEntryNamespace(entry);
      if (namespace_name.empty() || !analysed.contains(namespace_name)) {
        ++update.kept_other;
        entries.push_back(Rank(entry));
        continue;
      }
      // Ours to rewrite: replaced by `listed_now` whatever it said; counted by why.
      std::string why;
      if (!ParseDemandEntry(entry, &why)) {
        ++update.dropped_unparsable;
      } else if (!pods_now.contains(ResidentEntryPod(entry))) {
        ++update.dropped_stale;
      }
    }
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Ranked& a, const Ranked& b) {
    if (a.busy != b.busy) return a.busy > b.busy;
    return a.text < b.text;
  });
  if (entries.size() > kMaxResidentEntries) {
    update.dropped_over_cap = static_cast<int>(entries.size() - kMaxResidentEntries);
    entries.resize(kMaxResidentEntries);
  }
  std::vector<std::string> texts;
  for (Ranked& r : entries) texts.push_back(std::move(r.text));
  update.value = FormatResidentDemand(texts);
  return update;
}

}  // namespace kraken::k8s
