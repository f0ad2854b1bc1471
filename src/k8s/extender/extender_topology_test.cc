// Topology-aware placement through the real extender server over loopback, on nodes
// built from the real nvidia-smi captures (collectors/nvml/topology_testing.h): an HGX
// node of the H100 capture (18 NVLinks per GPU to NVSwitch) and a two-socket PCIe server
// of the L40S capture (PCIe Gen4 x16, no NVLink).
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <thread>

#include "collectors/nvml/topology_testing.h"
#include "k8s/client/topology_annotation.h"
#include "k8s/extender/extender_server.h"

namespace kraken::k8s {
namespace {

NodeGpuTopology HgxWithBusy() {
  NodeGpuTopology node = nvml::testing::NodeFromSmiCapture(nvml::testing::kH100SmiCapture, 8, nvml::testing::HgxNvswitch());
  for (int g : {0, 2, 5}) node.gpus[static_cast<size_t>(g)].free = false;
  return node;
}

NodeGpuTopology PcieTreeWithBusy() {
  NodeGpuTopology node =
      nvml::testing::NodeFromSmiCapture(nvml::testing::kL40sSmiCapture, 8, nvml::testing::TwoSocketPcieTree());
  node.gpus[1].free = false;
  return node;
}

std::string TopoNode(const std::string& name, const std::string& topology_annotation) {
  std::string annotations =
      topology_annotation.empty() ? "" : R"("kraken.io/gpu-topology":")" + topology_annotation + R"(")";
  return R"({"kind":"Node","metadata":{"name":")" + name + R"(","annotations":{)" + annotations +
         R"(}},"status":{"allocatable":{"nvidia.com/gpu":"8"},"capacity":{"nvidia.com/gpu":"8"}}})";
}

std::string TopoArgs(int gpus, const std::string& pod_annotations) {
  std::string pod = R"({"kind":"Pod","metadata":{"name":"allreduce-0","namespace":"ml","annotations":{)" +
                    pod_annotations + R"(}},"spec":{"containers":[{"name":"t","resources":{"limits":{"nvidia.com/gpu":")" +
                    std::to_string(gpus) + R"("}}}]}})";
  return R"({"pod":)" + pod + R"(,"nodes":{"items":[)" + TopoNode("hgx-h100", FormatTopologyAnnotation(HgxWithBusy())) +
         "," + TopoNode("pcie-l40s", FormatTopologyAnnotation(PcieTreeWithBusy())) + "," + TopoNode("plain", "") + "]}}";
}

class TopologyExtender : public ::testing::Test {
 protected:
  void SetUp() override {
    AddExtenderRoutes(server_, "/kraken");
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void TearDown() override {
    server_.stop();
    thread_.join();
  }
  std::string Post(const std::string& verb, const std::string& body) {
    httplib::Client client("127.0.0.1", port_);
    auto res = client.Post("/kraken/" + verb, body, "application/json");
    EXPECT_TRUE(res);
    if (!res) return "";
    EXPECT_EQ(res->status, 200) << res->body;
    return res->body;
  }
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST_F(TopologyExtender, FourGpuPodGetsTheBestFreeSetAndTheNvlinkNodeFirst) {
  std::string args = TopoArgs(4, "");
  // No kraken data on the pod: every node starts at the neutral 50; the topology term is
  // the node's bottleneck over the best (450 GB/s): 1 for the HGX node, 31.51 / 450 for
  // the PCIe server, 0.5 for the node without the annotation.
  EXPECT_EQ(Post("prioritize", args),
            R"([{"host":"hgx-h100","score":75},{"host":"pcie-l40s","score":29},{"host":"plain","score":50}])");
  simdjson::dom::parser parser;
  std::string explain = Post("explain", args);
  simdjson::dom::element doc = parser.parse(explain);
  simdjson::dom::array nodes = doc["nodes"];
  std::vector<simdjson::dom::element> n(nodes.begin(), nodes.end());
  ASSERT_EQ(n.size(), 3u);
  auto ints = [](simdjson::dom::element e) {
    std::vector<int64_t> out;
    for (simdjson::dom::element v : simdjson::dom::array(e)) out.push_back(int64_t(v));
    return out;
  };
  // HGX: GPUs 0, 2, 5 busy; all-to-all NV18 (18 x 25 GB/s), the lowest free win the tie.
  EXPECT_EQ(ints(n[0]["gpus"]), (std::vector<int64_t>{1, 3, 4, 6}));
  EXPECT_DOUBLE_EQ(double(n[0]["gpus_slowest_pair_gbps"]), 450);
  EXPECT_DOUBLE_EQ(double(n[0]["blind_slowest_pair_gbps"]), 450);
  // PCIe server, GPU 1 busy: 4-7 on socket 1 (31.51 GB/s) where the lowest free GPUs
  // 0, 2, 3, 4 would cross the sockets (SYS: 15.75 GB/s).
  EXPECT_EQ(ints(n[1]["gpus"]), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(ints(n[1]["blind_gpus"]), (std::vector<int64_t>{0, 2, 3, 4}));
  EXPECT_NEAR(double(n[1]["gpus_slowest_pair_gbps"]), 31.51, 0.005);
  EXPECT_NEAR(double(n[1]["blind_slowest_pair_gbps"]), 15.75, 0.005);
  std::string_view reason = n[1]["reason"];
  EXPECT_NE(reason.find("topology: chosen GPUs 4,5,6,7 (slowest pair 31.5 GB/s, 1 NUMA node(s)"), std::string_view::npos)
      << reason;
  EXPECT_TRUE(n[2]["gpus"].error());  // no annotation: no set
}

TEST_F(TopologyExtender, NvlinkRequiredFiltersNodesWithoutIt) {
  std::string filter = Post("filter", TopoArgs(4, R"("kraken.io/topology":"nvlink-required")"));
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(filter);
  simdjson::dom::array kept = doc["nodes"]["items"];
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(std::string_view(kept.at(0)["metadata"]["name"]), "hgx-h100");
  EXPECT_EQ(std::string_view(doc["failedNodes"]["pcie-l40s"]).substr(0, 46), "pod requires NVLink; the node's GPUs have none");
  EXPECT_EQ(std::string_view(doc["failedNodes"]["plain"]).substr(0, 60),
            "pod requires NVLink; node has no usable kraken.io/gpu-topolo");
  // Six GPUs: the HGX node has five free.
  doc = parser.parse(Post("filter", TopoArgs(6, R"("kraken.io/topology":"nvlink-required")")));
  EXPECT_EQ(simdjson::dom::array(doc["nodes"]["items"]).size(), 0u);
  EXPECT_EQ(std::string_view(doc["failedNodes"]["hgx-h100"]).substr(0, 56),
            "pod requires NVLink; no 6 free GPUs all joined by NVLink");
}

}  // namespace
}  // namespace kraken::k8s
