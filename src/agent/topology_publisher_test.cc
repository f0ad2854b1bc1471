// The agent's kraken.io/gpu-topology publisher against the loopback fake API server, for
// an HGX node of the real H100 capture (collectors/nvml/topology_testing.h).
#include "agent/topology_publisher.h"

#include <gtest/gtest.h>

#include "collectors/nvml/topology_testing.h"
#include "k8s/client/fake_api_server.h"
#include "k8s/client/topology_annotation.h"

namespace kraken::agent {
namespace {

std::vector<PublishedGpu> CaptureGpus(int copies) {
  nvml::SmiConversionOptions options;
  options.copies = copies;
  Result<nvml::Capture> c = nvml::CaptureFromNvidiaSmi(testing::DataPath(nvml::testing::kH100SmiCapture), options);
  EXPECT_TRUE(c.ok());
  std::vector<PublishedGpu> gpus;
  if (c.ok())
    for (const nvml::DeviceFacts& d : c->devices) gpus.push_back({d.uuid.value, false});
  return gpus;
}

TEST(TopologyPublisher, PatchesTheNodeWhenWhichGpusAreFreeChanges) {
  k8s::testing::FakeApiServer api;
  api.Add("/api/v1/nodes/hgx-1", {});
  k8s::KubeClient client(api.Config());
  std::vector<PublishedGpu> gpus = CaptureGpus(8);
  ASSERT_EQ(gpus.size(), 8u);
  TopologyPublisher publisher(
      client, "hgx-1", nvml::testing::NodeFromSmiCapture(nvml::testing::kH100SmiCapture, 8, nvml::testing::HgxNvswitch()),
      gpus);
  Result<bool> first = publisher.Publish(nullptr);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(*first);
  std::string value = api.Annotation("/api/v1/nodes/hgx-1", k8s::kGpuTopologyKey);
  EXPECT_EQ(value.substr(0, 72), "v1;gpu=0,n0,c20,p63.02,l18,free;gpu=1,n0,c20,p63.02,l18,free;gpu=2,n0,c2");
  EXPECT_NE(value.find(";link=0-1,NV18,-,450.00;"), std::string::npos);
  std::vector<k8s::testing::Recorded> requests = api.TakeRequests();
  ASSERT_EQ(requests.size(), 2u);  // GET, PATCH
  EXPECT_EQ(requests[1].method, "PATCH");
  // The same state again: nothing is sent.
  EXPECT_FALSE(*publisher.Publish(nullptr));
  EXPECT_TRUE(api.TakeRequests().empty());
  // The kubelet gave GPU 3 to a container: GPU 3 becomes used.
  k8s::GpuPodMap map = k8s::GpuPodMap::Build({{"ml", "train-0", "trainer", "nvidia.com/gpu", {gpus[3].uuid}}});
  EXPECT_TRUE(*publisher.Publish(&map));
  std::string why;
  std::optional<NodeGpuTopology> parsed =
      k8s::ParseTopologyAnnotation(api.Annotation("/api/v1/nodes/hgx-1", k8s::kGpuTopologyKey), &why);
  ASSERT_TRUE(parsed) << why;
  EXPECT_FALSE(parsed->gpus[3].free);
  EXPECT_TRUE(parsed->gpus[2].free);
  EXPECT_EQ(parsed->links.size(), 28u);
}

TEST(TopologyPublisher, MigGpusAreNeverFreeWhole) {
  NodeGpuTopology base;
  base.gpus = {TopologyGpu{0, 0, 8, 31.5, 0, true}, TopologyGpu{1, 0, 8, 31.5, 0, true}};
  NodeGpuTopology marked = TopologyWithHolders(base, {{"GPU-a", true}, {"GPU-b", false}}, nullptr);
  EXPECT_FALSE(marked.gpus[0].free);
  EXPECT_TRUE(marked.gpus[1].free);
}

}  // namespace
}  // namespace kraken::agent
