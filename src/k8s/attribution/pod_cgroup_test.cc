// /proc/<pid>/cgroup lines in the shapes the kubelet creates (cgroupfs and systemd
// drivers, cgroup v1 and v2, containerd/docker/CRI-O); written for the test from the
// documented naming (kubelet cgroup manager: pod<uid>, kubepods-<qos>-pod<uid_>.slice).
#include "k8s/attribution/pod_cgroup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/testing/test_data.h"

namespace kraken::k8s {
namespace {

constexpr char kUid[] = "1f3e2a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b";
constexpr char kCid[] = "8d2c7e0f1a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";

TEST(PodCgroupTest, CgroupfsV1Burstable) {
  // Appended piece by piece: the same string built with chained operator+ trips GCC 12's
  // false -Warray-bounds report at -O3 (GCC bug 105329).
  std::string text;
  for (const char* controller : {"12:pids:", "11:memory:"}) {
    text.append(controller).append("/kubepods/burstable/pod").append(kUid);
    text.append("/").append(kCid).append("\n");
  }
  auto pod = ParsePodCgroup(text);
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->pod_uid, kUid);
  EXPECT_EQ(pod->container_id, kCid);
  EXPECT_EQ(pod->qos_class, "burstable");
}

TEST(PodCgroupTest, SystemdV2ContainerdAndGuaranteed) {
  std::string uid_ = kUid;
  std::replace(uid_.begin(), uid_.end(), '-', '_');
  auto besteffort = ParsePodCgroup("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + uid_ +
                                   ".slice/cri-containerd-" + kCid + ".scope\n");
  ASSERT_TRUE(besteffort.has_value());
  EXPECT_EQ(besteffort->pod_uid, kUid);
  EXPECT_EQ(besteffort->container_id, kCid);
  EXPECT_EQ(besteffort->qos_class, "besteffort");
  auto guaranteed = ParsePodCgroup("0::/kubepods.slice/kubepods-pod" + uid_ + ".slice/crio-" + kCid + ".scope");
  ASSERT_TRUE(guaranteed.has_value());
  EXPECT_EQ(guaranteed->qos_class, "guaranteed");
  EXPECT_EQ(guaranteed->container_id, kCid);
  // kind: the node's own cgroup and kubelet.slice in front.
  auto nested = ParsePodCgroup(
      "0::/system.slice/docker-abc.scope/kubelet.slice/kubelet-kubepods.slice/"
      "kubelet-kubepods-burstable.slice/kubelet-kubepods-burstable-pod" +
      uid_ + ".slice/cri-containerd-" + kCid + ".scope");
  ASSERT_TRUE(nested.has_value());
  EXPECT_EQ(nested->pod_uid, kUid);
  EXPECT_EQ(nested->qos_class, "burstable");
}

TEST(PodCgroupTest, HostProcessesAndDamagedLinesAreNoPod) {
  EXPECT_FALSE(ParsePodCgroup("0::/user.slice/user-1000.slice/session-3.scope\n").has_value());
  EXPECT_FALSE(ParsePodCgroup("0::/kubepods/burstable/podnot-a-uid/abc\n").has_value());
  EXPECT_FALSE(ParsePodCgroup("garbage\n::\n").has_value());
  EXPECT_FALSE(ParsePodCgroup("").has_value());
  // The pod's own cgroup (the pause process' parent): a pod, no container.
  auto pod_only = ParsePodCgroup(std::string("0::/kubepods/pod") + kUid);
  ASSERT_TRUE(pod_only.has_value());
  EXPECT_EQ(pod_only->container_id, "");
}

TEST(PodCgroupTest, ReadsFromAProcRoot) {
  std::string root = kraken::testing::MakeTempDir("proc");
  std::filesystem::create_directories(root + "/4242");
  std::ofstream(root + "/4242/cgroup") << "0::/kubepods/besteffort/pod" << kUid << "/" << kCid << "\n";
  auto pod = ReadPodCgroup(4242, root);
  ASSERT_TRUE(pod.ok());
  ASSERT_TRUE(pod->has_value());
  EXPECT_EQ((*pod)->container_id, kCid);
  EXPECT_EQ(ReadPodCgroup(4243, root).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(ReadPodCgroup(-1, root).ok());
}

}  // namespace
}  // namespace kraken::k8s
