// The agent with pod annotations, end to end in one process: the replayed 8 x H100 node
// (tests/fixtures/nvml/h100x8.nvml), a real gRPC kubelet on a unix socket
// (k8s/attribution/pod_resources/fake_kubelet.h) that gives GPUs 2, 3 and 4 to three pods, and a
// loopback API server (k8s/client/fake_pod_api.h) whose pod LIST annotates them: GPU 2's pod
// kraken.io/profiling: disabled, GPU 3's kraken.io/profile-interval: 1s, GPU 4's none.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
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

std::string CaptureGpu(int k) { return "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(k); }

// The lines of `text` of family `family` for GPU `gpu`.
std::vector<std::string> LinesOf(const std::string& text, std::string_view family, int gpu) {
  std::vector<std::string> out;
  std::string key = "gpu=\"" + std::to_string(gpu) + "\"";
  for (std::string_view line : Split(text, '\n'))
    if (line.rfind(family, 0) == 0 && line.find(key) != std::string_view::npos) out.emplace_back(line);
  return out;
}

TEST(AgentPodsTest, OptedOutGpusLeaveLabelsAnalysisAndStoreAndPodIntervalsSpaceTheSamples) {
  ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100x8.nvml").c_str(), 1);
  nvml::NvmlSamplerOptions sampler_options;
  sampler_options.proc_root = "";
  auto session = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, sampler_options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::string dir = testing::MakeTempDir("agent_pods");
  auto store = ProfileStore::Open(dir + "/kraken.db");
  ASSERT_TRUE(store.ok());

  std::string socket = dir + "/kubelet.sock";
  k8s::testing::FakeKubelet kubelet({
      {"ml", "secret-train", {{"trainer", {{"nvidia.com/gpu", {CaptureGpu(2)}}}, {}}}},
      {"serving", "slow-infer", {{"server", {{"nvidia.com/gpu", {CaptureGpu(3)}}}, {}}}},
      {"ml", "plain", {{"main", {{"nvidia.com/gpu", {CaptureGpu(4)}}}, {}}}},
  });
  ASSERT_TRUE(kubelet.Start(socket).ok());
  k8s::testing::FakePodApi api;
  api.SetPods("node-a", {{"ml", "secret-train", {{"kraken.io/profiling", "Disabled"}}},
                         {"serving", "slow-infer", {{"kraken.io/profile-interval", "1s"}}},
                         {"ml", "plain", {{"kraken.io/profiling", "enabled"}}},
                         {"kube-system", "coredns", {}}});
  k8s::KubeClient client(api.Config());

  auto run = testing::RunPodAwareAgent(*session->sampler, store->get(), socket, client, "node-a");
  const std::string& text = run.metrics;
  const int64_t passes = run.passes;
  const Agent& agent = *run.agent;
  kubelet.Stop();

  // The LIST, exactly (one per refresh; the test's refresh is the default 10 s: one).
  std::vector<k8s::testing::FakePodApiRequest> requests = api.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a");
  EXPECT_EQ(requests[0].authorization, "Bearer test-token");

  // /metrics: GPU 2 keeps its device-level series, without pod labels; GPU 3 and 4 have theirs.
  ASSERT_EQ(LinesOf(text, "DCGM_FI_DEV_GPU_UTIL{", 2).size(), 1u) << text;
  EXPECT_EQ(LinesOf(text, "DCGM_FI_DEV_GPU_UTIL{", 2)[0].find("pod="), std::string::npos);
  EXPECT_EQ(LinesOf(text, "DCGM_FI_DEV_POWER_USAGE{", 2).size(), 1u);
  ASSERT_EQ(LinesOf(text, "DCGM_FI_DEV_GPU_UTIL{", 3).size(), 1u);
  EXPECT_NE(LinesOf(text, "DCGM_FI_DEV_GPU_UTIL{", 3)[0].find("container=\"server\",namespace=\"serving\",pod=\"slow-infer\""),
            std::string::npos);
  ASSERT_EQ(LinesOf(text, "DCGM_FI_DEV_GPU_UTIL{", 4).size(), 1u);
  EXPECT_NE(LinesOf(text, "DCGM_FI_DEV_GPU_UTIL{", 4)[0].find("pod=\"plain\""), std::string::npos);
  // Every GPU is shown, the skipped one with its last values.
  for (int gpu = 0; gpu < 8; ++gpu) EXPECT_EQ(LinesOf(text, "DCGM_FI_DEV_SM_CLOCK{", gpu).size(), 1u) << gpu;
  // No profiling activity and no kraken_* analysis for the opted-out GPU; the others have it.
  // (This capture has no GPM activity: its removal is DeviceBatchesTest's. The PCIe rate,
  // DCGM_FI_PROF_PCIE_* in dcgm-exporter's names, is an NVML device counter and stays.)
  EXPECT_EQ(LinesOf(text, "DCGM_FI_PROF_PCIE_TX_BYTES{", 2).size(), 1u);
  EXPECT_TRUE(LinesOf(text, "kraken_", 2).empty()) << text;
  EXPECT_EQ(LinesOf(text, "kraken_analysis_passes{", 4).size(), 1u);
  EXPECT_EQ(LinesOf(text, "kraken_analysis_passes{", 3).size(), 1u);

  // Passes: every GPU but GPU 3 in each; GPU 3 once per second.
  EXPECT_EQ(agent.device_passes(4), passes);
  EXPECT_EQ(agent.device_passes(2), passes);  // its device-level series go on
  int64_t slow = agent.device_passes(3);

  // The store: nothing of GPU 2; GPU 3's samples are the passes that sampled it, >= 0.95 s apart.
  auto profiles = (*store)->ListProfiles();
  ASSERT_TRUE(profiles.ok());
  ASSERT_EQ(profiles->size(), 1u);
  auto loaded = (*store)->LoadProfile((*profiles)[0].id);
  ASSERT_TRUE(loaded.ok());
  std::vector<TimeNs> gpu3, gpu4;
  for (const Series& s : loaded->series) {
    EXPECT_NE(s.entity.gpu_index, 2) << GetMetricInfo(s.metric).name;
    if (s.metric != Metric::kPowerW || s.entity.pid >= 0) continue;
    if (s.entity.gpu_index == 3)
      for (const Sample& sample : s.samples) gpu3.push_back(sample.time_ns);
    if (s.entity.gpu_index == 4)
      for (const Sample& sample : s.samples) gpu4.push_back(sample.time_ns);
  }
  EXPECT_EQ(static_cast<int64_t>(gpu4.size()), passes);
  EXPECT_EQ(static_cast<int64_t>(gpu3.size()), slow);
  ASSERT_GE(gpu3.size(), 2u);  // at start and at least once more in >= 2.3 s
  for (size_t i = 1; i < gpu3.size(); ++i) EXPECT_GE(gpu3[i] - gpu3[i - 1], 900'000'000) << i;
  // At most one sample per 0.95 s of the run (the first at its start), against one per pass.
  double span_s = static_cast<double>(gpu4.back() - gpu4.front()) / 1e9;
  EXPECT_LE(static_cast<double>(slow), 1 + span_s / 0.95);
  EXPECT_LT(slow * 4, passes);
  std::printf("passes %lld, GPU 3 sampled in %lld over %.2f s\n", static_cast<long long>(passes),
              static_cast<long long>(slow), span_s);
}

}  // namespace
}  // namespace kraken::agent
