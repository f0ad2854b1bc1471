// The node's kraken.io/resident-demand list over time. A pass of `kraken annotate`
// analyses some namespaces; on each node it touches, the entries of those namespaces are
// its to rewrite (the analysed pods now on the node, nothing else: a pod that left, moved
// or opted out loses its entry), while the entries of every other namespace belong to
// another pass or controller and are kept as they are. Pure, so the rule is tested apart
// from the API server (docs/k8s-controller.md, "Controller").
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kraken::k8s {

// "NS/NAME" of an entry's pod= field, read as text so that an entry the v1 parser
// refuses (another version, a malformed figure) can still be attributed; "" when the
// entry has no pod= field.
std::string ResidentEntryPod(std::string_view entry);
// The namespace part of ResidentEntryPod; "" when there is no pod= or no '/'.
std::string ResidentEntryNamespace(std::string_view entry);

struct ResidentListUpdate {
  std::string value;           // the new kraken.io/resident-demand ("none" when empty)
  int kept_other = 0;          // entries of namespaces the pass did not analyse (or of no namespace), kept
  int dropped_stale = 0;       // entries of analysed namespaces whose pod is not listed now
  int dropped_unparsable = 0;  // entries of analysed namespaces the v1 parser refuses
  int dropped_over_cap = 0;    // entries beyond kMaxResidentEntries, the least busy ones
};

// `current`: the node's annotation ("" when it has none, "none"); `listed_now`: the
// entries (ResidentEntry text) of the analysed pods now on the node; `analysed`: the
// namespaces the pass analysed. The result holds `listed_now` plus the kept entries,
// ordered by busy descending (an entry without a readable busy last), then by text, and
// cut at kMaxResidentEntries: when a node runs more GPU pods than fit, the busiest ones
// are the ones that slow a newcomer down, so they are the ones the extender must see.
ResidentListUpdate UpdateResidentList(std::string_view current, const std::vector<std::string>& listed_now,
                                      const std::set<std::string>& analysed);

}  // namespace kraken::k8s
