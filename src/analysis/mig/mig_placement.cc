#include "analysis/mig/mig_placement.h"

#include <algorithm>
#include <set>

namespace kraken::mig {
namespace {

using SliceMask = unsigned;

SliceMask MaskOf(const MigProfileSpec& p, int start) {
  SliceMask mask = 0;
  for (int s = start; s < start + p.memory_slices; ++s) mask |= 1u << s;
  return mask;
}

bool Fits(const MigGeometry& g, const MigProfileSpec& p, int start, SliceMask used) {
  if (start < 0 || start + p.memory_slices > g.memory_slice_count) return false;
  return (MaskOf(p, start) & used) == 0;
}

bool Place(const MigGeometry& g, const std::vector<int>& profiles, size_t next, SliceMask used,
           std::vector<MigPlacement>* out) {
  if (next == profiles.size()) return true;
  const MigProfileSpec& p = g.profiles[static_cast<size_t>(profiles[next])];
  for (int start : p.starts) {
    if (!Fits(g, p, start, used)) continue;
    out->push_back({profiles[next], start});
    if (Place(g, profiles, next + 1, used | MaskOf(p, start), out)) return true;
    out->pop_back();
  }
  return false;
}

// All (profile, start) pairs of the geometry in a fixed order.
std::vector<MigPlacement> AllPlacements(const MigGeometry& g) {
  std::vector<MigPlacement> all;
  for (size_t p = 0; p < g.profiles.size(); ++p)
    for (int start : g.profiles[p].starts) all.push_back({static_cast<int>(p), start});
  return all;
}

void Enumerate(const MigGeometry& g, const std::vector<MigPlacement>& all, size_t from, SliceMask used,
               std::vector<int>* counts, std::set<std::vector<int>>* seen) {
  for (size_t i = from; i < all.size(); ++i) {
    const MigProfileSpec& p = g.profiles[static_cast<size_t>(all[i].profile)];
    if (!Fits(g, p, all[i].start, used)) continue;
    int& count = (*counts)[static_cast<size_t>(all[i].profile)];
    if (count >= p.max_instances) continue;
    ++count;
    seen->insert(*counts);
    Enumerate(g, all, i + 1, used | MaskOf(p, all[i].start), counts, seen);
    --count;
  }
}

}  // namespace

bool IsValidLayout(const MigGeometry& g, const std::vector<MigPlacement>& layout, std::string* why) {
  auto fail = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  SliceMask used = 0;
  int compute = 0;
  std::vector<int> counts(g.profiles.size(), 0);
  for (const MigPlacement& m : layout) {
    if (m.profile < 0 || static_cast<size_t>(m.profile) >= g.profiles.size()) return fail("unknown profile index");
    const MigProfileSpec& p = g.profiles[static_cast<size_t>(m.profile)];
    if (std::find(p.starts.begin(), p.starts.end(), m.start) == p.starts.end())
      return fail(p.name + " may not start at memory slice " + std::to_string(m.start));
    if (!Fits(g, p, m.start, used)) return fail(p.name + " at slice " + std::to_string(m.start) + " overlaps another instance");
    used |= MaskOf(p, m.start);
    compute += p.compute_slices;
    if (++counts[static_cast<size_t>(m.profile)] > p.max_instances)
      return fail("more than " + std::to_string(p.max_instances) + " instances of " + p.name);
  }
  if (compute > g.compute_slice_count) return fail("more than " + std::to_string(g.compute_slice_count) + " compute slices");
  return true;
}

std::optional<std::vector<MigPlacement>> PlaceProfiles(const MigGeometry& g, std::vector<int> profiles) {
  for (int p : profiles)
    if (p < 0 || static_cast<size_t>(p) >= g.profiles.size()) return std::nullopt;
  // Largest first: they have the fewest starts, so the search fails fast.
  std::sort(profiles.begin(), profiles.end(), [&](int a, int b) {
    const MigProfileSpec& pa = g.profiles[static_cast<size_t>(a)];
    const MigProfileSpec& pb = g.profiles[static_cast<size_t>(b)];
    if (pa.memory_slices != pb.memory_slices) return pa.memory_slices > pb.memory_slices;
    return pa.compute_slices > pb.compute_slices;
  });
  std::vector<MigPlacement> out;
  if (!Place(g, profiles, 0, 0, &out)) return std::nullopt;
  if (!IsValidLayout(g, out)) return std::nullopt;
  std::sort(out.begin(), out.end(), [](const MigPlacement& a, const MigPlacement& b) { return a.start < b.start; });
  return out;
}

std::vector<std::vector<int>> FeasibleProfileCounts(const MigGeometry& g) {
  std::set<std::vector<int>> seen;
  std::vector<int> counts(g.profiles.size(), 0);
  Enumerate(g, AllPlacements(g), 0, 0, &counts, &seen);
  std::vector<std::vector<int>> out;
  for (const auto& c : seen) {
    // Keep only combinations whose compute fits too (always true for the built-in tables,
    // whose starts already keep it within 7).
    int compute = 0;
    for (size_t p = 0; p < c.size(); ++p) compute += c[p] * g.profiles[p].compute_slices;
    if (compute <= g.compute_slice_count) out.push_back(c);
  }
  return out;
}

}  // namespace kraken::mig
