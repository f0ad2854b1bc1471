// Placement validity and packing optimality (against brute force on small inputs).
#include "analysis/mig/mig_packing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace kraken::mig {
namespace {

const MigGeometry& H100() { return *FindMigGeometry("h100-sxm"); }
// Profile indices in every built-in table.
constexpr int k1g = 0, k1gDouble = 1, k2g = 2, k3g = 3, k4g = 4, k7g = 5;

TEST(MigPlacementTest, LayoutRulesAreEnforced) {
  const MigGeometry& g = H100();
  std::string why;
  EXPECT_TRUE(IsValidLayout(g, {{k4g, 0}, {k3g, 4}}));
  EXPECT_TRUE(IsValidLayout(g, {{k1g, 0}, {k1g, 1}, {k1g, 2}, {k1g, 3}, {k1g, 4}, {k1g, 5}, {k1g, 6}}));
  EXPECT_FALSE(IsValidLayout(g, {{k3g, 0}, {k2g, 2}}, &why));
  EXPECT_EQ(why, "2g.20gb at slice 2 overlaps another instance");
  EXPECT_FALSE(IsValidLayout(g, {{k2g, 1}}, &why));
  EXPECT_EQ(why, "2g.20gb may not start at memory slice 1");
  EXPECT_FALSE(IsValidLayout(g, {{k1g, 7}}, &why));  // slice 7 is no 1g start
  EXPECT_FALSE(IsValidLayout(g, {{k7g, 0}, {k1g, 0}}));
  EXPECT_FALSE(IsValidLayout(g, {{k3g, 1}}));
}

TEST(MigPlacementTest, PlacesWhatFitsAndRefusesWhatDoesNot) {
  const MigGeometry& g = H100();
  auto layout = PlaceProfiles(g, {k1g, k2g, k3g});
  ASSERT_TRUE(layout.has_value());
  EXPECT_TRUE(IsValidLayout(g, *layout));
  ASSERT_EQ(layout->size(), 3u);
  EXPECT_EQ((*layout)[0].profile, k3g);
  EXPECT_EQ((*layout)[0].start, 0);
  EXPECT_FALSE(PlaceProfiles(g, {k4g, k4g}).has_value());
  EXPECT_FALSE(PlaceProfiles(g, {k3g, k3g, k1g}).has_value());
  EXPECT_TRUE(PlaceProfiles(g, {k1gDouble, k1gDouble, k1gDouble, k1gDouble}).has_value());
  EXPECT_FALSE(PlaceProfiles(g, {k1gDouble, k1gDouble, k1gDouble, k1gDouble, k1g}).has_value());
  // 2g, 2g, 2g take slices 0-5; a 1g fits at 6 but a 1g.20gb (2 slices at 6-7) does too.
  EXPECT_TRUE(PlaceProfiles(g, {k2g, k2g, k2g, k1gDouble}).has_value());
  EXPECT_FALSE(PlaceProfiles(g, {k2g, k2g, k2g, k1g, k1g}).has_value());
  EXPECT_TRUE(PlaceProfiles(g, {k7g}).has_value());
  EXPECT_FALSE(PlaceProfiles(g, {k7g, k1g}).has_value());
}

TEST(MigPlacementTest, FeasibleCombinationsAreAllPlaceableAndMaximalOnesAreKnown) {
  const MigGeometry& g = H100();
  auto feasible = FeasibleProfileCounts(g);
  EXPECT_EQ(feasible.size(), 77u);  // cross-checked by an independent enumeration
  for (const auto& counts : feasible) {
    std::vector<int> profiles;
    for (size_t p = 0; p < counts.size(); ++p) profiles.insert(profiles.end(), counts[p], static_cast<int>(p));
    EXPECT_TRUE(PlaceProfiles(g, profiles).has_value());
  }
  auto has = [&](std::vector<int> c) { return std::find(feasible.begin(), feasible.end(), c) != feasible.end(); };
  EXPECT_TRUE(has({7, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(has({0, 0, 0, 1, 1, 0}));  // 4g + 3g (allowed since R510)
  EXPECT_TRUE(has({1, 0, 1, 1, 0, 0}));  // 3g + 2g + 1g
  EXPECT_FALSE(has({1, 0, 0, 0, 0, 1}));
  EXPECT_TRUE(has({0, 1, 3, 0, 0, 0}));  // 2g x3 + 1g.20gb at slice 6
  EXPECT_FALSE(has({2, 0, 3, 0, 0, 0}));
}

// The fewest GPUs by trying every assignment of items to bins (small inputs only).
int BruteForceGpus(const MigGeometry& g, const std::vector<int>& items) {
  int n = static_cast<int>(items.size());
  for (int bins = 1; bins <= n; ++bins) {
    std::vector<std::vector<int>> content(static_cast<size_t>(bins));
    std::function<bool(int)> assign = [&](int i) {
      if (i == n) return true;
      for (int b = 0; b < bins; ++b) {
        content[static_cast<size_t>(b)].push_back(items[static_cast<size_t>(i)]);
        bool ok = PlaceProfiles(g, content[static_cast<size_t>(b)]).has_value() && assign(i + 1);
        content[static_cast<size_t>(b)].pop_back();
        if (ok) return true;
        if (content[static_cast<size_t>(b)].empty()) break;  // empty bins are interchangeable
      }
      return false;
    };
    if (assign(0)) return bins;
  }
  return n;
}

void ExpectValidPacking(const MigGeometry& g, const std::vector<int>& items, const PackResult& r) {
  std::vector<int> seen(items.size(), 0);
  for (const PackedGpu& gpu : r.gpus) {
    std::string why;
    EXPECT_TRUE(IsValidLayout(g, gpu.layout, &why)) << why;
    ASSERT_EQ(gpu.layout.size(), gpu.items.size());
    for (size_t i = 0; i < gpu.items.size(); ++i) {
      ++seen[static_cast<size_t>(gpu.items[i])];
      EXPECT_EQ(items[static_cast<size_t>(gpu.items[i])], gpu.layout[i].profile);
    }
  }
  for (int s : seen) EXPECT_EQ(s, 1);
}

TEST(MigPackingTest, HandMadeInputsPackOntoTheFewestGpus) {
  const MigGeometry& g = H100();
  struct Case {
    std::vector<int> items;
    int gpus;
  };
  const Case cases[] = {
      {{k3g, k3g, k4g}, 2},                          // 3g+3g on one, 4g on another
      {{k4g, k3g, k4g, k3g}, 2},                     // 4g+3g twice
      {{k2g, k2g, k2g, k2g, k1g, k1g}, 2},
      {{k1gDouble, k1gDouble, k1gDouble, k1gDouble, k1gDouble}, 2},
      {{k7g, k1g, k1g}, 2},
      {{k3g, k2g, k1g, k3g, k2g, k1g, k1g}, 2},
      {{k1g, k1g, k1g, k1g, k1g, k1g, k1g, k1g}, 2},  // 7 fit, the 8th needs a second GPU
  };
  for (const Case& c : cases) {
    PackResult r = PackMinGpus(g, c.items);
    EXPECT_TRUE(r.exact);
    EXPECT_EQ(static_cast<int>(r.gpus.size()), c.gpus);
    EXPECT_EQ(BruteForceGpus(g, c.items), c.gpus);
    ExpectValidPacking(g, c.items, r);
  }
}

TEST(MigPackingTest, ExactPackingMatchesBruteForceOnEverySmallMultiset) {
  // Every multiset of up to 5 instances over the 6 profiles, on each geometry.
  for (const MigGeometry& g : MigGeometries()) {
    int checked = 0;
    std::vector<int> items;
    std::function<void(int)> grow = [&](int from) {
      if (!items.empty()) {
        PackResult r = PackMinGpus(g, items);
        ASSERT_EQ(static_cast<int>(r.gpus.size()), BruteForceGpus(g, items));
        ExpectValidPacking(g, items, r);
        ++checked;
      }
      if (items.size() == 5) return;
      for (int p = from; p < 6; ++p) {
        items.push_back(p);
        grow(p);
        items.pop_back();
      }
    };
    grow(0);
    EXPECT_EQ(checked, 461);  // C(6+5, 5) - 1 multisets
  }
}

TEST(MigPackingTest, LargeInputsFallBackToFirstFitDecreasing) {
  const MigGeometry& g = H100();
  std::vector<int> items;
  for (int i = 0; i < 40; ++i) items.push_back(i % 5);
  PackResult exact = PackMinGpus(g, items);
  PackResult greedy = PackMinGpus(g, items, /*max_states=*/100);
  EXPECT_TRUE(exact.exact);
  EXPECT_FALSE(greedy.exact);
  ExpectValidPacking(g, items, exact);
  ExpectValidPacking(g, items, greedy);
  EXPECT_LE(exact.gpus.size(), greedy.gpus.size());
  // 8 each of 1g, 1g.20gb, 2g, 3g, 4g: the 4g and 3g pair up (8 GPUs), the rest need
  // 8 + 16 + 16 = 40 memory slices = 5 more GPUs.
  EXPECT_EQ(exact.gpus.size(), 13u);
}

// 60,000 instances: the exact search's recursion (one level per GPU) overflowed the stack;
// first fit, resumed per profile, packs them in well under a second.
TEST(MigPackingTest, HugeInputsFallBackToFirstFitWithoutDeepRecursion) {
  const MigGeometry& g = H100();
  std::vector<int> items(60000, k1g);
  for (size_t i = 0; i < items.size(); i += 3) items[i] = k3g;
  PackResult result = PackMinGpus(g, items);
  EXPECT_FALSE(result.exact);
  size_t placed = 0;
  for (const PackedGpu& gpu : result.gpus) {
    EXPECT_TRUE(IsValidLayout(g, gpu.layout));
    placed += gpu.items.size();
  }
  EXPECT_EQ(placed, items.size());
  // 20,000 3g (two fill a GPU's memory, and no 1g fits beside them) and 40,000 1g
  // (seven to a GPU): first-fit decreasing reaches the bound.
  EXPECT_EQ(result.gpus.size(), 10000u + (40000u + 6) / 7);
}

}  // namespace
}  // namespace kraken::mig
