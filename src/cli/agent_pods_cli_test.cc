// `kraken agent` with pod attribution, end to end: the real binary on a replayed node
// (tests/fixtures/nvml), a real gRPC server standing in for the kubelet on a unix socket
// (k8s/attribution/pod_resources/fake_kubelet.h) that assigns the capture's GPU and MIG UUIDs to pods,
// and /metrics scraped over loopback.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "k8s/attribution/pod_resources/fake_kubelet.h"

namespace kraken {
namespace {

using namespace std::chrono_literals;
using k8s::testing::FakeKubelet;
using k8s::testing::FakePod;

struct PodAgent {
  std::unique_ptr<testing::ChildProcess> process;
  int port = 0;
};

PodAgent StartAgent(const std::string& capture, const std::string& socket) {
  ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/" + capture).c_str(), 1);
  std::string dir = testing::MakeTempDir("agent_pods_run");
  PodAgent agent;
  agent.process = std::make_unique<testing::ChildProcess>(
      std::vector<std::string>{KRAKEN_BINARY_PATH, "agent", "--listen", "127.0.0.1:0", "--interval", "100ms",
                               "--no-store", "--nvml-library", KRAKEN_NVML_REPLAY_LIBRARY, "--pod-resources-socket",
                               socket, "--pod-refresh", "1s"},
      dir + "/agent.log");
  std::string log = agent.process->WaitForLog("/metrics: ", 30s);
  size_t at = log.find("serving http://127.0.0.1:");
  if (at != std::string::npos) agent.port = std::atoi(log.c_str() + at + std::strlen("serving http://127.0.0.1:"));
  return agent;
}

std::string Scrape(int port) {
  httplib::Client client("127.0.0.1", port);
  auto response = client.Get("/metrics");
  return response && response->status == 200 ? response->body : "";
}

// For each series of `family` keyed by the value of `key_label` (gpu, GPU_I_ID): the pod
// labels it carries, "container=...,namespace=...,pod=..." ("" when none).
std::map<std::string, std::string> PodLabelsBy(const std::string& text, const std::string& family,
                                               const std::string& key_label) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(family + "{", 0) != 0) continue;
    size_t key = line.find("," + key_label + "=\"");
    if (key == std::string::npos) key = line.find("{" + key_label + "=\"");
    if (key == std::string::npos) continue;
    key += key_label.size() + 3;
    std::string id = line.substr(key, line.find('"', key) - key);
    size_t close = line.rfind("} ");
    size_t container = line.find(",container=\"");
    out[id] = container == std::string::npos || container > close ? ""
                                                                   : line.substr(container + 1, close - container - 1);
  }
  return out;
}

std::string CaptureGpu(int k) { return "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(k); }

TEST(AgentPodsCliTest, LabelsEachGpuWithThePodTheKubeletGaveItTo) {
  std::string socket = testing::MakeTempDir("agent_pods") + "/kubelet.sock";
  // h100x8.nvml: GPU k has UUID GPU-00000000-0000-0000-0000-00000000000k.
  std::vector<FakePod> pods = {
      {"ml-train", "llama-finetune-0", {{"trainer", {{"nvidia.com/gpu", {CaptureGpu(0), CaptureGpu(1)}}}, {}}}},
      {"inference", "vllm-7d9f8c-x2x4q", {{"server", {{"nvidia.com/gpu", {CaptureGpu(5)}}}, {}}}},
      // GPU 3 time-sliced between two pods: no single owner, no labels.
      {"team-a", "notebook-a", {{"jupyter", {{"nvidia.com/gpu", {CaptureGpu(3) + "::0"}}}, {}}}},
      {"team-b", "notebook-b", {{"jupyter", {{"nvidia.com/gpu", {CaptureGpu(3) + "::1"}}}, {}}}},
      {"kube-system", "coredns-5d78c9869d-8kq2r", {{"coredns", {}, {}}}},
  };
  FakeKubelet kubelet(pods);
  ASSERT_TRUE(kubelet.Start(socket).ok());
  PodAgent agent = StartAgent("h100x8.nvml", socket);
  ASSERT_GT(agent.port, 0) << agent.process->Log();

  std::map<std::string, std::string> util = PodLabelsBy(Scrape(agent.port), "DCGM_FI_DEV_GPU_UTIL", "gpu");
  EXPECT_EQ(util, (std::map<std::string, std::string>{
                      {"0", "container=\"trainer\",namespace=\"ml-train\",pod=\"llama-finetune-0\""},
                      {"1", "container=\"trainer\",namespace=\"ml-train\",pod=\"llama-finetune-0\""},
                      {"2", ""},
                      {"3", ""},
                      {"4", ""},
                      {"5", "container=\"server\",namespace=\"inference\",pod=\"vllm-7d9f8c-x2x4q\""},
                      {"6", ""},
                      {"7", ""},
                  }));
  EXPECT_EQ(agent.process->Stop(SIGTERM, 20s), 0) << agent.process->Log();
  kubelet.Stop();
  ASSERT_GE(kubelet.calls(), 1);
  EXPECT_EQ(kubelet.methods()[0], "/v1.PodResourcesLister/List");
  std::string log = agent.process->Log();
  EXPECT_NE(log.find("pod attribution: " + socket + " lists 3 GPU/MIG devices with one container each, 1 shared"),
            std::string::npos)
      << log;
}

TEST(AgentPodsCliTest, LabelsMigInstancesByTheirMigUuid) {
  std::string socket = testing::MakeTempDir("agent_pods") + "/kubelet.sock";
  // h100-mig.nvml: GPU instance 9 (1g.10gb) is MIG device MIG-00000002-...-000000000002,
  // GPU instance 2 (3g.40gb) is MIG-00000000-...; instances 3 and 10 are allocated to nobody.
  FakeKubelet kubelet({
      {"serving", "tgi-0", {{"server", {{"nvidia.com/mig-1g.10gb", {"MIG-00000002-0000-0000-0000-000000000002"}}}, {}}}},
      {"ml", "bert-ft", {{"train", {{"nvidia.com/mig-3g.40gb", {"MIG-00000000-0000-0000-0000-000000000000"}}}, {}}}},
  });
  ASSERT_TRUE(kubelet.Start(socket).ok());
  PodAgent agent = StartAgent("h100-mig.nvml", socket);
  ASSERT_GT(agent.port, 0) << agent.process->Log();

  std::string text = Scrape(agent.port);
  std::map<std::string, std::string> used = PodLabelsBy(text, "DCGM_FI_DEV_FB_USED", "GPU_I_ID");
  EXPECT_EQ(used, (std::map<std::string, std::string>{
                      {"2", "container=\"train\",namespace=\"ml\",pod=\"bert-ft\""},
                      {"3", ""},
                      {"9", "container=\"server\",namespace=\"serving\",pod=\"tgi-0\""},
                      {"10", ""},
                  }))
      << text;
  EXPECT_EQ(agent.process->Stop(SIGTERM, 20s), 0) << agent.process->Log();
}

TEST(AgentPodsCliTest, WithoutTheSocketRunsWithoutPodLabelsAndSaysSoOnce) {
  std::string socket = testing::MakeTempDir("agent_pods") + "/absent.sock";
  PodAgent agent = StartAgent("h100x8.nvml", socket);
  ASSERT_GT(agent.port, 0) << agent.process->Log();
  std::this_thread::sleep_for(2500ms);  // two refreshes more (--pod-refresh 1s)
  std::map<std::string, std::string> util = PodLabelsBy(Scrape(agent.port), "DCGM_FI_DEV_GPU_UTIL", "gpu");
  ASSERT_EQ(util.size(), 8u);
  for (const auto& [gpu, labels] : util) EXPECT_EQ(labels, "") << gpu;
  EXPECT_EQ(agent.process->Stop(SIGTERM, 20s), 0);
  std::string log = agent.process->Log();
  std::string said = "info: pod attribution: " + socket + ": no such socket";
  size_t first = log.find(said);
  EXPECT_NE(first, std::string::npos) << log;
  EXPECT_EQ(log.find(said, first + 1), std::string::npos) << log;  // once, not per refresh
  EXPECT_EQ(log.find("error"), std::string::npos) << log;
}

}  // namespace
}  // namespace kraken
