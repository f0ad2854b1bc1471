#include "agent/pod_labels.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <filesystem>
#include <fstream>

#include "base/testing/test_data.h"

namespace kraken::agent {
namespace {

constexpr const char* kGpu = "GPU-11111111-2222-3333-4444-555555555555";

SampleBatch OneGpuWithProcess(int64_t pid) {
  SampleBatch batch;
  batch.entities.resize(2);
  batch.entities[0].gpu_index = 0;
  batch.entities[0].gpu_uuid = kGpu;
  batch.entities[1] = batch.entities[0];
  batch.entities[1].pid = pid;
  return batch;
}

TEST(PodLabelerTest, LabelsFromTheListAndDropsThemWhenTheKubeletFails) {
  std::atomic<int> calls{0};
  std::atomic<bool> fail{false};
  PodLabelOptions options;
  options.source = "test.sock";
  options.refresh_ns = 3'600'000'000'000;  // only the first, synchronous list in this test
  options.list = [&]() -> Result<std::vector<k8s::PodDevices>> {
    ++calls;
    if (fail) return Unavailable("test.sock: unavailable");
    return std::vector<k8s::PodDevices>{{"ml", "trainer-0", "pytorch", "nvidia.com/gpu", {kGpu}}};
  };
  {
    PodLabeler labeler(options);
    labeler.Start();
    EXPECT_EQ(calls.load(), 1);
    EXPECT_EQ(labeler.mapped_devices(), 1u);
    SampleBatch batch = OneGpuWithProcess(77);
    labeler.Apply(k8s::MigUuids(), batch);
    EXPECT_EQ(batch.entities[0].pod, "trainer-0");
    EXPECT_EQ(batch.entities[0].namespace_name, "ml");
    EXPECT_EQ(batch.entities[0].container, "pytorch");
    EXPECT_EQ(batch.entities[1].pod, "trainer-0");
    labeler.Stop();
  }
  fail = true;
  PodLabeler failing(options);
  failing.Start();
  EXPECT_EQ(failing.mapped_devices(), 0u);
  SampleBatch batch = OneGpuWithProcess(77);
  failing.Apply(k8s::MigUuids(), batch);
  EXPECT_TRUE(batch.entities[0].pod.empty());
  EXPECT_TRUE(batch.entities[1].labels.empty());  // no proc_root: no fallback
}

TEST(PodLabelerTest, CgroupFallbackGivesThePodUidOfUnmappedProcesses) {
  std::string proc = testing::MakeTempDir("pod_labels_proc");
  std::filesystem::create_directories(proc + "/4242");
  std::ofstream(proc + "/4242/cgroup")
      << "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1f3e2a4b_5c6d_4e7f_8a9b_0c1d2e3f4a5b.slice/"
         "cri-containerd-0123456789abcdef0123456789abcdef.scope\n";
  PodLabelOptions options;  // no kubelet: the fallback alone
  options.proc_root = proc;
  PodLabeler labeler(options);
  labeler.Start();
  SampleBatch batch = OneGpuWithProcess(4242);
  labeler.Apply(k8s::MigUuids(), batch);
  labeler.Stop();
  EXPECT_TRUE(batch.entities[0].labels.empty());
  EXPECT_TRUE(batch.entities[1].pod.empty());
  EXPECT_EQ(batch.entities[1].labels, (std::map<std::string, std::string>{
                                          {"container_id", "0123456789abcdef0123456789abcdef"},
                                          {"pod_uid", "1f3e2a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b"}}));
}

}  // namespace
}  // namespace kraken::agent

namespace kraken::agent {
namespace {

// The pod LIST rides on the kubelet refresh: policies come with the map; an API error keeps
// the policies last read (an opted-out pod stays out); no LIST while no pod holds a GPU.
TEST(PodLabelerTest, PoliciesComeFromTheListAreKeptOnErrorsAndNotAskedWithoutGpuPods) {
  std::atomic<bool> gpu_held{true}, api_fails{false};
  std::atomic<int> lists{0};
  PodLabelOptions options;
  options.source = "test.sock";
  options.refresh_ns = 5'000'000;  // 5 ms
  options.list = [&]() -> Result<std::vector<k8s::PodDevices>> {
    if (!gpu_held) return std::vector<k8s::PodDevices>{};
    return std::vector<k8s::PodDevices>{{"ml", "trainer-0", "pytorch", "nvidia.com/gpu", {kGpu}}};
  };
  options.list_pods = [&]() -> Result<std::vector<k8s::NodePod>> {
    ++lists;
    if (api_fails) return IoError("GET /api/v1/pods: HTTP 403");
    return std::vector<k8s::NodePod>{{"ml", "trainer-0", {{"kraken.io/profiling", "disabled"}}},
                                     {"ml", "other", {{"kraken.io/profile-interval", "2s"}}},
                                     {"ml", "plain", {}}};
  };
  options.agent_interval_ns = 100'000'000;
  options.pods_source = "the test API server";
  PodLabeler labeler(options);
  labeler.Start();
  PodSnapshot first = labeler.snapshot();
  ASSERT_NE(first.policies, nullptr);
  EXPECT_EQ(lists.load(), 1);
  ASSERT_EQ(first.policies->size(), 2u);  // pods without a policy are not kept
  EXPECT_TRUE(first.policies->at({"ml", "trainer-0"}).disabled);
  EXPECT_EQ(first.policies->at({"ml", "other"}).interval_ns, 2'000'000'000);

  auto wait_refreshes = [&](int n) {
    int64_t start = labeler.snapshot().generation;
    while (labeler.snapshot().generation < start + n) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  api_fails = true;
  wait_refreshes(3);
  PodSnapshot kept = labeler.snapshot();
  ASSERT_NE(kept.policies, nullptr);
  EXPECT_TRUE(kept.policies->at({"ml", "trainer-0"}).disabled);

  gpu_held = false;
  wait_refreshes(2);
  int asked = lists.load();
  wait_refreshes(3);
  EXPECT_EQ(lists.load(), asked);  // the kubelet lists no GPU: no LIST
  labeler.Stop();
}

}  // namespace
}  // namespace kraken::agent
