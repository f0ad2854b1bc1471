// Node GPU labels: the MIG layout's canonical text and the Kubernetes label value rule
// (<= 63 characters, [A-Za-z0-9._-], alphanumeric at both ends) every value must pass.
#include "k8s/controller/node_labels.h"

#include <gtest/gtest.h>

namespace kraken::k8s {
namespace {

TEST(NodeLabelsTest, LabelValueRuleOfKubernetes) {
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

TEST(NodeLabelsTest, MigLayoutIsLargestSliceFirstAndAlwaysAValidLabel) {
  EXPECT_EQ(MigLayoutText({}), "none");
  EXPECT_EQ(MigLayoutText({{"1g.5gb", 7}}), "1g.5gb-x7");
  EXPECT_EQ(MigLayoutText({{"2g.10gb", 2}, {"3g.20gb", 1}}), "3g.20gb-x1.2g.10gb-x2");
  // Same compute slices: more memory first; "+me" (media extensions) made label-safe.
  EXPECT_EQ(MigLayoutText({{"1g.10gb+me", 1}, {"1g.5gb", 5}, {"1g.10gb", 1}}), "1g.10gb-x1.1g.10gb_me-x1.1g.5gb-x5");
  // Every A100 80GB GPU-instance profile at once is longer than a label may be.
  std::map<std::string, int> all = {{"7g.80gb", 1}, {"4g.40gb", 1}, {"3g.40gb", 2},   {"2g.20gb", 3},
                                    {"1g.20gb", 4}, {"1g.10gb", 7}, {"1g.10gb+me", 1}};
  EXPECT_EQ(MigLayoutText(all), "mixed");
  for (const auto& layout : {std::map<std::string, int>{{"1g.5gb", 7}}, std::map<std::string, int>{{"1g.10gb+me", 1}},
                             all, std::map<std::string, int>{{"4g.20gb", 1}, {"2g.10gb", 1}, {"1g.5gb", 1}}}) {
    std::string text = MigLayoutText(layout);
    EXPECT_TRUE(IsValidLabelValue(text)) << text;
  }
}

TEST(NodeLabelsTest, LabelsAndPatchBody) {
  auto labels = NodeGpuLabels("a100-40gb-sxm", 8, {{"1g.5gb", 56}});
  EXPECT_EQ(labels, (std::map<std::string, std::string>{{"kraken.io/gpu-class", "a100-40gb-sxm"},
                                                        {"kraken.io/gpu-count", "8"},
                                                        {"kraken.io/mig-layout", "1g.5gb-x56"}}));
  auto unknown = NodeGpuLabels("", 1, {});
  EXPECT_EQ(unknown.count("kraken.io/gpu-class"), 0u);  // never a guessed class
  EXPECT_EQ(unknown.at("kraken.io/mig-layout"), "none");
  EXPECT_EQ(LabelPatchBody({{"kraken.io/gpu-count", "1"}, {"kraken.io/mig-layout", "none"}}),
            R"({"metadata":{"labels":{"kraken.io/gpu-count":"1","kraken.io/mig-layout":"none"}}})");
}

}  // namespace
}  // namespace kraken::k8s
