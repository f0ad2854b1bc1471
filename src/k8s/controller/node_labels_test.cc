// Node GPU labels and their patch body (the MIG layout's text and the label value rule are
// tested with the planner: analysis/mig/layout_name_test.cc).
#include "k8s/controller/node_labels.h"

#include <gtest/gtest.h>

namespace kraken::k8s {
namespace {

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
