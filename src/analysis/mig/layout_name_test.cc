// A MIG layout's name (the nvidia.com/mig.config label value and the mig-parted
// configuration name, which must agree) and the Kubernetes label value rule it obeys.
#include "analysis/mig/layout_name.h"

#include <gtest/gtest.h>

#include "analysis/mig/node_layouts.h"
#include "model/mig_catalog.h"

namespace kraken::mig {
namespace {

TEST(MigLayoutNameTest, LabelValueRuleOfKubernetes) {
  EXPECT_TRUE(IsValidLabelValue(""));
  EXPECT_TRUE(IsValidLabelValue("a100-40gb-sxm"));
  EXPECT_TRUE(IsValidLabelValue("1g.5gb-x7"));
  EXPECT_TRUE(IsValidLabelValue(std::string(63, 'a')));
  EXPECT_FALSE(IsValidLabelValue(std::string(64, 'a')));
  EXPECT_FALSE(IsValidLabelValue("1g.10gb+me-x1"));
  EXPECT_FALSE(IsValidLabelValue("-x1"));
  EXPECT_FALSE(IsValidLabelValue("x1."));
  EXPECT_FALSE(IsValidLabelValue("a b"));
}

TEST(MigLayoutNameTest, LargestSliceFirstAndAlwaysAValidLabel) {
  EXPECT_EQ(MigLayoutName({}), "none");
  EXPECT_EQ(MigLayoutName({{"1g.5gb", 7}}), "1g.5gb-x7");
  EXPECT_EQ(MigLayoutName({{"2g.10gb", 2}, {"3g.20gb", 1}}), "3g.20gb-x1.2g.10gb-x2");
  // Same compute slices: more memory first; "+me" (media extensions) made label-safe.
  EXPECT_EQ(MigLayoutName({{"1g.10gb+me", 1}, {"1g.5gb", 5}, {"1g.10gb", 1}}), "1g.10gb-x1.1g.10gb_me-x1.1g.5gb-x5");
  // Every A100 80GB GPU-instance profile at once is longer than a label may be.
  std::map<std::string, int> all = {{"7g.80gb", 1}, {"4g.40gb", 1}, {"3g.40gb", 2},   {"2g.20gb", 3},
                                    {"1g.20gb", 4}, {"1g.10gb", 7}, {"1g.10gb+me", 1}};
  EXPECT_EQ(MigLayoutName(all), "mixed");
  for (const auto& layout : {std::map<std::string, int>{{"1g.5gb", 7}}, std::map<std::string, int>{{"1g.10gb+me", 1}},
                             all, std::map<std::string, int>{{"4g.20gb", 1}, {"2g.10gb", 1}, {"1g.5gb", 1}}}) {
    std::string text = MigLayoutName(layout);
    EXPECT_TRUE(IsValidLabelValue(text)) << text;
  }
}

// A plan of sliced A100 40GB GPUs given per GPU as lists of profile names.
MigPlan LayoutNameTestPlan(const std::vector<std::vector<std::string>>& gpus) {
  MigPlan plan;
  plan.geometry = FindMigGeometry("a100-40gb-sxm");
  for (const auto& names : gpus) {
    PackedGpu gpu;
    for (const std::string& name : names)
      for (size_t p = 0; p < plan.geometry->profiles.size(); ++p)
        if (plan.geometry->profiles[p].name == name) gpu.layout.push_back({static_cast<int>(p), 0});
    plan.packing.gpus.push_back(std::move(gpu));
  }
  return plan;
}

TEST(MigLayoutNameTest, ConfigNamedByNodeTotalsWithSuffixForOtherSlicings) {
  // node-0 and node-1 hold two 1g.5gb and one 2g.10gb each, sliced differently; node-2 is
  // sliced like node-0; node-3 has one sliced GPU and one kept whole.
  MigPlan plan = LayoutNameTestPlan({{"1g.5gb", "1g.5gb"}, {"2g.10gb"},
                                     {"1g.5gb", "2g.10gb"}, {"1g.5gb"},
                                     {"1g.5gb", "1g.5gb"}, {"2g.10gb"},
                                     {"3g.20gb"}});
  plan.gpus_whole = 1;
  auto nodes = LayoutNodes(plan, 2, {});
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 4u);
  EXPECT_EQ((*nodes)[0].config, "2g.10gb-x1.1g.5gb-x2");
  EXPECT_EQ((*nodes)[1].config, "2g.10gb-x1.1g.5gb-x2-v2");
  EXPECT_EQ((*nodes)[2].config, "2g.10gb-x1.1g.5gb-x2");
  EXPECT_EQ((*nodes)[3].config, "3g.20gb-x1");
  EXPECT_FALSE((*nodes)[3].gpus[1].mig_enabled);
  // The controller's label for a node is MigLayoutName of the node's instance counts: the
  // same text as the configuration of the first node sliced that way.
  EXPECT_EQ(MigLayoutName(NodeInstanceTotals((*nodes)[0].gpus)), (*nodes)[0].config);
  // Whole GPUs only: "none".
  MigPlan whole;
  whole.geometry = plan.geometry;
  whole.gpus_whole = 2;
  auto whole_nodes = LayoutNodes(whole, 2, {});
  ASSERT_TRUE(whole_nodes.ok());
  EXPECT_EQ((*whole_nodes)[0].config, "none");
}

}  // namespace
}  // namespace kraken::mig
