// kraken.io/gpu-topology: the node's GPU topology as the extender reads it.
#include "k8s/client/topology_annotation.h"

#include <gtest/gtest.h>

namespace kraken::k8s {
namespace {

NodeGpuTopology TwoGpus() {
  NodeGpuTopology t;
  t.gpus = {TopologyGpu{0, 0, 20, 63.02, 18, true}, TopologyGpu{1, -1, 20, 63.02, 18, false}};
  t.links = {GpuPairLink{0, 1, "NV18", "", 450}};
  return t;
}

TEST(TopologyAnnotation, RoundTrips) {
  std::string text = FormatTopologyAnnotation(TwoGpus());
  EXPECT_EQ(text, "v1;gpu=0,n0,c20,p63.02,l18,free;gpu=1,n-,c20,p63.02,l18,used;link=0-1,NV18,-,450.00");
  std::string why;
  std::optional<NodeGpuTopology> back = ParseTopologyAnnotation(text, &why);
  ASSERT_TRUE(back) << why;
  ASSERT_EQ(back->gpus.size(), 2u);
  EXPECT_EQ(back->gpus[1].numa_node, -1);
  EXPECT_FALSE(back->gpus[1].free);
  EXPECT_DOUBLE_EQ(back->gpus[0].pcie_gbps, 63.02);
  ASSERT_EQ(back->links.size(), 1u);
  EXPECT_EQ(back->links[0].path, "NV18");
  EXPECT_EQ(back->links[0].pcie_path, "");
  EXPECT_DOUBLE_EQ(back->links[0].gbps, 450);
  EXPECT_TRUE(back->HasNvlink());
}

TEST(TopologyAnnotation, RefusesWhatItCannotTrust) {
  std::string why;
  EXPECT_FALSE(ParseTopologyAnnotation("v2;gpu=0,n0,c1,p1,l0,free", &why));
  EXPECT_NE(why.find("version"), std::string::npos);
  EXPECT_FALSE(ParseTopologyAnnotation("v1;gpu=0,n0,c1,p1,l0,free;gpu=0,n0,c1,p1,l0,free", &why));
  EXPECT_NE(why.find("repeated"), std::string::npos);
  EXPECT_FALSE(ParseTopologyAnnotation("v1;gpu=0,n0,c1,p1,l0,free;link=0-3,NV4,PIX,100", &why));
  EXPECT_NE(why.find("unlisted GPU"), std::string::npos);
  EXPECT_FALSE(ParseTopologyAnnotation("v1;gpu=99,n0,c1,p1,l0,free", &why));   // beyond kMaxTopologyGpus
  EXPECT_FALSE(ParseTopologyAnnotation("v1;gpu=0,n0,c1,pNaN,l0,free", &why));
  EXPECT_FALSE(ParseTopologyAnnotation("v1;gpu=0,n0,c1,p1,l0,idle", &why));
  EXPECT_FALSE(ParseTopologyAnnotation("v1;link=0-0,NV4,PIX,1", &why));
  EXPECT_FALSE(ParseTopologyAnnotation("v1;bogus=1", &why));
  EXPECT_TRUE(ParseTopologyAnnotation("v1", &why));  // a node without GPUs
}

}  // namespace
}  // namespace kraken::k8s
