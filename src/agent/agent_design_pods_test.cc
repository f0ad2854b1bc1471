// The agent with the KRAKEN design's pod annotations (kraken.keti.ai/*), end to end in one
// process as agent_pods_test.cc: the replayed 8 x H100 node, a real gRPC kubelet that gives
// GPUs 2 .. 5 to four pods, and a loopback API server whose pod LIST annotates them the
// design's way: GPU 2's pod profiling disabled, GPU 3's metrics "gpu" (no memory, no
// network), GPU 4's profile-interval 1s and export-format json, GPU 5's none.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "agent/agent.h"
#include "agent/agent_test_support.h"
#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "base/text.h"
#include "k8s/client/fake_pod_api.h"
#include "k8s/attribution/node_pods.h"
#include "k8s/attribution/pod_resources/fake_kubelet.h"
#include "k8s/attribution/pod_resources/pod_resources_client.h"

namespace kraken::agent {
namespace {

std::string DesignCaptureGpu(int k) { return "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(k); }

size_t DesignLineCount(const std::string& text, std::string_view family, int gpu) {
  size_t n = 0;
  std::string key = "gpu=\"" + std::to_string(gpu) + "\"";
  for (std::string_view line : Split(text, '\n'))
    n += line.rfind(family, 0) == 0 && line.find(key) != std::string_view::npos;
  return n;
}

TEST(AgentDesignPodsTest, KetiAnnotationsOptOutSpaceAndNarrowTheSampling) {
  ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100x8.nvml").c_str(), 1);
  nvml::NvmlSamplerOptions sampler_options;
  sampler_options.proc_root = "";
  auto session = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, sampler_options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::string dir = testing::MakeTempDir("agent_design_pods");
  auto store = ProfileStore::Open(dir + "/kraken.db");
  ASSERT_TRUE(store.ok());
  std::string socket = dir + "/kubelet.sock";
  k8s::testing::FakeKubelet kubelet({
      {"ml", "private", {{"c", {{"nvidia.com/gpu", {DesignCaptureGpu(2)}}}, {}}}},
      {"ml", "compute-only", {{"c", {{"nvidia.com/gpu", {DesignCaptureGpu(3)}}}, {}}}},
      {"ml", "slow", {{"c", {{"nvidia.com/gpu", {DesignCaptureGpu(4)}}}, {}}}},
      {"ml", "plain", {{"c", {{"nvidia.com/gpu", {DesignCaptureGpu(5)}}}, {}}}},
  });
  ASSERT_TRUE(kubelet.Start(socket).ok());
  k8s::testing::FakePodApi api;
  api.SetPods("node-k", {{"ml", "private", {{"kraken.keti.ai/profiling", "disabled"}}},
                         {"ml", "compute-only", {{"kraken.keti.ai/profiling", "enabled"}, {"kraken.keti.ai/metrics", "gpu"}}},
                         {"ml", "slow", {{"kraken.keti.ai/profile-interval", "1s"}, {"kraken.keti.ai/export-format", "json"}}},
                         {"ml", "plain", {}}});
  k8s::KubeClient client(api.Config());

  auto run = testing::RunPodAwareAgent(*session->sampler, store->get(), socket, client, "node-k");
  const std::string& text = run.metrics;
  const int64_t passes = run.passes;
  const Agent& agent = *run.agent;
  kubelet.Stop();

  // GPU 2: opted out, as kraken.io/profiling: disabled would: no pod labels, no analysis.
  ASSERT_EQ(DesignLineCount(text, "DCGM_FI_DEV_GPU_UTIL{", 2), 1u) << text;
  EXPECT_EQ(DesignLineCount(text, "kraken_", 2), 0u);
  // GPU 3: "gpu" keeps utilization, clocks, power; drops framebuffer memory and PCIe.
  EXPECT_EQ(DesignLineCount(text, "DCGM_FI_DEV_GPU_UTIL{", 3), 1u);
  EXPECT_EQ(DesignLineCount(text, "DCGM_FI_DEV_POWER_USAGE{", 3), 1u);
  EXPECT_EQ(DesignLineCount(text, "DCGM_FI_DEV_FB_USED{", 3), 0u);
  EXPECT_EQ(DesignLineCount(text, "DCGM_FI_PROF_PCIE_TX_BYTES{", 3), 0u);
  // GPU 5, without annotations, keeps all of them.
  EXPECT_EQ(DesignLineCount(text, "DCGM_FI_DEV_FB_USED{", 5), 1u);
  EXPECT_EQ(DesignLineCount(text, "DCGM_FI_PROF_PCIE_TX_BYTES{", 5), 1u);
  // GPU 4: once a second instead of every pass.
  EXPECT_EQ(agent.device_passes(5), passes);
  EXPECT_LT(agent.device_passes(4) * 4, passes);

  // The store agrees: nothing of GPU 2, no framebuffer series of GPU 3.
  auto profiles = (*store)->ListProfiles();
  ASSERT_TRUE(profiles.ok());
  ASSERT_EQ(profiles->size(), 1u);
  auto loaded = (*store)->LoadProfile((*profiles)[0].id);
  ASSERT_TRUE(loaded.ok());
  bool gpu3_util = false, gpu5_fb = false;
  for (const Series& s : loaded->series) {
    EXPECT_NE(s.entity.gpu_index, 2) << GetMetricInfo(s.metric).name;
    if (s.entity.gpu_index == 3) {
      EXPECT_NE(s.metric, Metric::kFbUsedBytes);
    }
    gpu3_util = gpu3_util || (s.entity.gpu_index == 3 && s.metric == Metric::kGpuUtilPct);
    gpu5_fb = gpu5_fb || (s.entity.gpu_index == 5 && s.metric == Metric::kFbUsedBytes);
  }
  EXPECT_TRUE(gpu3_util);
  EXPECT_TRUE(gpu5_fb);
}

}  // namespace
}  // namespace kraken::agent
