// Contract tests of the pod-resources client against a real gRPC server on a unix socket
// (fake_kubelet.h), which answers with protobuf bytes encoded by hand from the kubelet's
// v1 field numbers, so these tests check the wire, not kraken's own .proto against itself.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>

#include "base/testing/test_data.h"
#include "k8s/attribution/pod_resources/fake_kubelet.h"
#include "k8s/attribution/pod_resources/gpu_pod_map.h"
#include "k8s/attribution/pod_resources/pod_resources_client.h"

namespace kraken::k8s {
namespace {

using testing::FakeContainer;
using testing::FakeKubelet;
using testing::FakePod;

constexpr const char* kGpu0 = "GPU-5a1b2c3d-0000-1111-2222-333344445555";
constexpr const char* kGpu1 = "GPU-6b2c3d4e-0000-1111-2222-333344445555";
constexpr const char* kGpu2 = "GPU-7c3d4e5f-0000-1111-2222-333344445555";
constexpr const char* kMig = "MIG-9f8e7d6c-aaaa-bbbb-cccc-ddddeeeeffff";

// What a GPU node's kubelet lists: a training pod with two whole GPUs (and pinned CPUs,
// which kraken does not read), an inference pod whose server container has a MIG slice and
// whose sidecar has no devices, a pod with one GPU and a NIC from another device plugin,
// and a system pod with no devices at all.
std::vector<FakePod> NodePods() {
  return {
      {"ml-train", "llama-finetune-0", {{"trainer", {{"nvidia.com/gpu", {kGpu0, kGpu1}}}, {2, 3, 4, 5}}}},
      {"inference",
       "vllm-7d9f8c-x2x4q",
       {{"server", {{"nvidia.com/mig-1g.10gb", {kMig}}}, {}}, {"metrics-sidecar", {}, {6}}}},
      {"research", "notebook-abc", {{"jupyter", {{"nvidia.com/gpu", {kGpu2}}, {"rdma/hca", {"mlx5_0"}}}, {}}}},
      {"kube-system", "coredns-5d78c9869d-8kq2r", {{"coredns", {}, {}}}},
  };
}

struct Fixture {
  std::string dir = kraken::testing::MakeTempDir("pod_resources");
  std::string socket = dir + "/kubelet.sock";
};

TEST(PodResourcesClientTest, ListsEveryContainerWithDevicesOverTheSocket) {
  Fixture f;
  FakeKubelet kubelet(NodePods());
  ASSERT_TRUE(kubelet.Start(f.socket).ok());
  auto listed = ListPodDevices(f.socket);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  kubelet.Stop();

  // One List RPC, on the kubelet's method path, with an empty ListPodResourcesRequest.
  EXPECT_EQ(kubelet.methods(), std::vector<std::string>{"/v1.PodResourcesLister/List"});
  EXPECT_EQ(kubelet.request_sizes(), std::vector<size_t>{0});

  ASSERT_EQ(listed->size(), 4u);
  const std::vector<PodDevices>& d = *listed;
  EXPECT_EQ(d[0].namespace_name, "ml-train");
  EXPECT_EQ(d[0].pod, "llama-finetune-0");
  EXPECT_EQ(d[0].container, "trainer");
  EXPECT_EQ(d[0].resource_name, "nvidia.com/gpu");
  EXPECT_EQ(d[0].device_ids, (std::vector<std::string>{kGpu0, kGpu1}));
  EXPECT_EQ(d[1].namespace_name, "inference");
  EXPECT_EQ(d[1].pod, "vllm-7d9f8c-x2x4q");
  EXPECT_EQ(d[1].container, "server");
  EXPECT_EQ(d[1].resource_name, "nvidia.com/mig-1g.10gb");
  EXPECT_EQ(d[1].device_ids, std::vector<std::string>{kMig});
  EXPECT_EQ(d[2].pod, "notebook-abc");
  EXPECT_EQ(d[2].resource_name, "nvidia.com/gpu");
  EXPECT_EQ(d[2].device_ids, std::vector<std::string>{kGpu2});
  EXPECT_EQ(d[3].pod, "notebook-abc");
  EXPECT_EQ(d[3].resource_name, "rdma/hca");
  EXPECT_EQ(d[3].device_ids, std::vector<std::string>{"mlx5_0"});

  // The map: three GPUs and one MIG device, each with its one container; the NIC is not a GPU.
  GpuPodMap map = GpuPodMap::Build(*listed);
  EXPECT_EQ(map.size(), 4u);
  EXPECT_EQ(*map.Find(kGpu0), (PodRef{"ml-train", "llama-finetune-0", "trainer"}));
  EXPECT_EQ(*map.Find(kGpu1), (PodRef{"ml-train", "llama-finetune-0", "trainer"}));
  EXPECT_EQ(*map.Find(kMig), (PodRef{"inference", "vllm-7d9f8c-x2x4q", "server"}));
  EXPECT_EQ(*map.Find(kGpu2), (PodRef{"research", "notebook-abc", "jupyter"}));
  EXPECT_EQ(map.Find("mlx5_0"), nullptr);
  EXPECT_TRUE(map.shared_devices().empty());
}

TEST(PodResourcesClientTest, EmptyNodeListsNothing) {
  Fixture f;
  FakeKubelet kubelet({});
  ASSERT_TRUE(kubelet.Start(f.socket).ok());
  auto listed = ListPodDevices(f.socket);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  EXPECT_TRUE(listed->empty());
  EXPECT_EQ(kubelet.calls(), 1);
}

TEST(PodResourcesClientTest, MissingSocketIsNotFoundNamingThePath) {
  Fixture f;
  auto listed = ListPodDevices(f.dir + "/absent.sock");
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(listed.status().message().rfind(f.dir + "/absent.sock: no such socket", 0), 0u)
      << listed.status().message();
}

TEST(PodResourcesClientTest, SocketNobodyListensOnIsUnavailable) {
  Fixture f;
  // Bound but never listening: connect() is refused, as after a kubelet crash left its
  // socket file behind.
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", f.socket.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  auto start = std::chrono::steady_clock::now();
  auto listed = ListPodDevices(f.socket, std::chrono::milliseconds(1500));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(listed.status().message().rfind(f.socket + ": ", 0), 0u) << listed.status().message();
  EXPECT_LT(seconds, 5.0);
}

TEST(PodResourcesClientTest, KubeletThatNeverAnswersEndsAtTheDeadline) {
  Fixture f;
  FakeKubelet kubelet(NodePods(), FakeKubelet::Mode::kNeverAnswer);
  ASSERT_TRUE(kubelet.Start(f.socket).ok());
  auto start = std::chrono::steady_clock::now();
  auto listed = ListPodDevices(f.socket, std::chrono::milliseconds(1000));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(listed.status().message(), f.socket + ": the kubelet did not answer List within 1000 ms");
  EXPECT_GE(seconds, 0.95);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(kubelet.calls(), 1);  // the RPC reached the server: it is the answer that never came
  kubelet.Stop();                 // cancels the waiting call; must not hang
}

}  // namespace
}  // namespace kraken::k8s
