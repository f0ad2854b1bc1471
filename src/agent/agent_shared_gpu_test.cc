// Per-pod use on shared GPUs, end to end in one process: the agent on the replayed H100
// (tests/fixtures/nvml/h100.nvml: gpu-burn and two memory hogs on GPU 0 during the load
// frames) and H100-MIG (three processes in GPU instance 2) captures, a real gRPC kubelet
// (fake_kubelet.h) that lists the GPU (as time-slicing replicas "<uuid>::N") or the MIG
// device to two or three pods, a loopback API server (fake_pod_api.h) whose pod LIST gives
// their UIDs, and a /proc root in a temporary folder whose <pid>/cgroup files put each
// captured pid in its pod. The per-pod numbers are the capture's process values summed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "agent/agent.h"
#include "agent/agent_test_support.h"
#include "base/text.h"
#include "analysis/pooling/pod_pooling.h"
#include "importers/common/exposition_parser.h"
#include "k8s/client/fake_pod_api.h"
#include "k8s/attribution/pod_resources/fake_kubelet.h"
#include "promql/pod_profiles.h"

namespace kraken::agent {
namespace {

constexpr char kSharedGpu[] = "GPU-00000000-0000-0000-0000-000000000000";
constexpr char kSharedMig[] = "MIG-00000000-0000-0000-0000-000000000000";  // GPU instance 2 of h100-mig

struct SharedPod {
  std::string name;       // in namespace "ml", container "main"
  std::string uid;
  std::vector<int> pids;  // the captured pids its cgroup holds
  std::map<std::string, std::string> annotations = {};
};

struct SharedGpuRun {
  std::string page;  // a /metrics page of a pass with the pods' processes
  std::vector<std::string> pages;  // every distinct such page seen (consecutive passes)
  std::vector<Series> stored;
};

// "<uid>" of pod `i`, in metadata.uid's form.
std::string SharedPodUid(int i) { return "5e1a0c2d-0000-4000-8000-00000000000" + std::to_string(i); }

// The pods that show on /metrics: all but those that opted out.
size_t SharedPodsShown(const std::vector<SharedPod>& pods) {
  size_t shown = 0;
  for (const SharedPod& pod : pods) {
    auto profiling = pod.annotations.find("kraken.io/profiling");
    shown += profiling == pod.annotations.end() || profiling->second != "disabled";
  }
  return shown;
}

// The agent on `fixture` with `pods` holding device `device_id` (one replica each); runs
// until a /metrics page shows one kraken_pod_gpu_fb_used line per pod, then stops.
SharedGpuRun RunSharedGpuAgent(const std::string& fixture, const std::string& device_id,
                               const std::vector<SharedPod>& pods) {
  // Every pass reads process utilization: the captures' frames are 1 s apart (a slow
  // interval each), and the pods' shares are compared with each frame's samples.
  nvml::NvmlSession session = testing::OpenReplay(fixture, 0);
  std::string dir = testing::MakeTempDir("agent_shared_gpu");
  std::vector<k8s::testing::FakePod> kubelet_pods;
  std::vector<k8s::testing::FakeApiPod> api_pods;
  for (size_t i = 0; i < pods.size(); ++i) {
    std::string replica = device_id + "::" + std::to_string(i);
    kubelet_pods.push_back({"ml", pods[i].name, {{"main", {{"nvidia.com/gpu", {replica}}}, {}}}});
    api_pods.push_back({"ml", pods[i].name, pods[i].annotations, pods[i].uid});
    for (int pid : pods[i].pids) {
      std::filesystem::create_directories(dir + "/proc/" + std::to_string(pid));
      std::ofstream(dir + "/proc/" + std::to_string(pid) + "/cgroup")
          << "0::/kubepods/besteffort/pod" << pods[i].uid << "/0123456789abcdef" << pid << "\n";
    }
  }
  api_pods.push_back({"kube-system", "coredns", {}, "9d9d9d9d-0000-4000-8000-000000000000"});
  k8s::testing::FakeKubelet kubelet(kubelet_pods);
  EXPECT_TRUE(kubelet.Start(dir + "/kubelet.sock").ok());
  k8s::testing::FakePodApi api;
  api.SetPods("node-s", api_pods);
  k8s::KubeClient client(api.Config());
  auto store = ProfileStore::Open(dir + "/kraken.db");
  EXPECT_TRUE(store.ok());

  AgentOptions options;
  options.interval_ns = 100'000'000;
  options.hostname = "replay-node";
  options.pods.list = [socket = dir + "/kubelet.sock"] { return k8s::ListPodDevices(socket); };
  options.pods.source = "the test kubelet";
  options.pods.list_pods = [&client] { return k8s::ListNodePods(client, "node-s"); };
  options.pods.proc_root = dir + "/proc";
  options.pods.agent_interval_ns = options.interval_ns;
  Agent agent(options, *session.sampler, store->get());
  EXPECT_TRUE(agent.Start().ok());
  SharedGpuRun run;
  std::string page;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (run.page.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    agent.RenderMetrics(page);
    size_t lines = 0;
    for (std::string_view line : Split(page, '\n')) lines += line.rfind("kraken_pod_gpu_fb_used{", 0) == 0;
    if (lines != SharedPodsShown(pods)) continue;
    if (run.pages.empty() || run.pages.back() != page) run.pages.push_back(page);
    if (run.pages.size() >= 3) run.page = run.pages.front();
  }
  EXPECT_TRUE(agent.Stop().ok());
  auto profiles = (*store)->ListProfiles();
  EXPECT_TRUE(profiles.ok() && profiles->size() == 1u);
  if (profiles.ok() && !profiles->empty()) {
    auto loaded = (*store)->LoadProfile((*profiles)[0].id);
    EXPECT_TRUE(loaded.ok());
    if (loaded.ok()) run.stored = loaded->series;
  }
  return run;
}

// The value of the line of family `family` whose labels contain `pod="<pod>"`; NaN if none.
double SharedPodValue(const std::string& page, std::string_view family, const std::string& pod) {
  for (std::string_view line : Split(page, '\n')) {
    if (line.rfind(std::string(family) + "{", 0) != 0 || line.find("pod=\"" + pod + "\"") == std::string_view::npos)
      continue;
    return std::stod(std::string(line.substr(line.rfind(' ') + 1)));
  }
  return std::nan("");
}

// The process series the store holds per pod: the distinct pids and the values of `metric`.
std::map<std::string, std::set<int64_t>> StoredPidsByPod(const std::vector<Series>& stored, Metric metric,
                                                         std::map<std::string, std::set<double>>* values) {
  std::map<std::string, std::set<int64_t>> pids;
  for (const Series& s : stored) {
    if (s.entity.pid < 0 || s.metric != metric || s.entity.pod.empty()) continue;
    EXPECT_EQ(s.entity.namespace_name, "ml");
    EXPECT_EQ(s.entity.container, "main");
    pids[s.entity.pod].insert(s.entity.pid);
    for (const Sample& sample : s.samples) (*values)[s.entity.pod].insert(sample.value);
  }
  return pids;
}

TEST(AgentSharedGpuTest, TwoPodsTimeSlicingOneH100GetTheirOwnSmAndMemory) {
  SharedGpuRun run = RunSharedGpuAgent("h100.nvml", kSharedGpu,
                                       {{"loader", SharedPodUid(1), {11327, 11328}}, {"burn", SharedPodUid(2), {11345}}});
  ASSERT_FALSE(run.page.empty()) << "no pass showed both pods";
  const std::string& page = run.page;
  // The exact line: dcgm-exporter's labels of GPU 0, then the pod's.
  EXPECT_NE(page.find("kraken_pod_gpu_sm_util{gpu=\"0\",UUID=\"GPU-00000000-0000-0000-0000-000000000000\","),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("Hostname=\"replay-node\",container=\"main\",namespace=\"ml\",pod=\"burn\"} 99\n"),
            std::string::npos)
      << page;
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_sm_util", "burn"), 99);   // gpu-burn's pmon sm
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_sm_util", "loader"), 0);  // the hogs ran no kernels
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_mem_copy_util", "burn"), 10);
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_fb_used", "burn"), 15690);        // 16452157440 B
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_fb_used", "loader"), 2566 + 1542);  // two hogs
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_processes", "loader"), 2);
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_processes", "burn"), 1);
  // The device's own series stay unlabelled: one GPU, two pods.
  for (std::string_view line : Split(page, '\n')) {
    if (line.rfind("DCGM_FI_DEV_GPU_UTIL{", 0) != 0) continue;
    EXPECT_EQ(line.find("pod="), std::string_view::npos) << line;
  }

  // Stored: each process under its pod, with the captured values.
  std::map<std::string, std::set<double>> memory;
  auto pids = StoredPidsByPod(run.stored, Metric::kProcessUsedMemoryBytes, &memory);
  EXPECT_EQ(pids["loader"], (std::set<int64_t>{11327, 11328}));
  EXPECT_EQ(pids["burn"], (std::set<int64_t>{11345}));
  EXPECT_EQ(memory["burn"], (std::set<double>{16452157440.0}));
  std::map<std::string, std::set<double>> sm;
  StoredPidsByPod(run.stored, Metric::kProcessSmUtilPct, &sm);
  EXPECT_EQ(sm["burn"], (std::set<double>{99}));
}

TEST(AgentSharedGpuTest, ThreePodsTimeSlicingOneH100) {
  SharedGpuRun run = RunSharedGpuAgent(
      "h100.nvml", kSharedGpu,
      {{"hog-a", SharedPodUid(1), {11327}}, {"hog-b", SharedPodUid(2), {11328}}, {"burn", SharedPodUid(3), {11345}}});
  ASSERT_FALSE(run.page.empty()) << "no pass showed the three pods";
  EXPECT_EQ(SharedPodValue(run.page, "kraken_pod_gpu_fb_used", "hog-a"), 2566);
  EXPECT_EQ(SharedPodValue(run.page, "kraken_pod_gpu_fb_used", "hog-b"), 1542);
  EXPECT_EQ(SharedPodValue(run.page, "kraken_pod_gpu_fb_used", "burn"), 15690);
  EXPECT_EQ(SharedPodValue(run.page, "kraken_pod_gpu_sm_util", "hog-a"), 0);
  EXPECT_EQ(SharedPodValue(run.page, "kraken_pod_gpu_sm_util", "hog-b"), 0);
  EXPECT_EQ(SharedPodValue(run.page, "kraken_pod_gpu_sm_util", "burn"), 99);
  std::map<std::string, std::set<double>> memory;
  auto pids = StoredPidsByPod(run.stored, Metric::kProcessUsedMemoryBytes, &memory);
  EXPECT_EQ(pids.size(), 3u);
  EXPECT_EQ(memory["hog-b"], (std::set<double>{1616904192.0}));
}

TEST(AgentSharedGpuTest, ThreePodsSharingOneMigInstanceGetMemoryButNoGuessedSm) {
  SharedGpuRun run = RunSharedGpuAgent(
      "h100-mig.nvml", kSharedMig,
      {{"a", SharedPodUid(1), {21180}}, {"b", SharedPodUid(2), {21181}}, {"c", SharedPodUid(3), {21198}}});
  ASSERT_FALSE(run.page.empty()) << "no pass showed the three pods";
  const std::string& page = run.page;
  EXPECT_NE(page.find("GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\",Hostname=\"replay-node\",container=\"main\","
                      "namespace=\"ml\",pod=\"a\"} 2296\n"),
            std::string::npos)
      << page;
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_fb_used", "b"), 1272);
  EXPECT_EQ(SharedPodValue(page, "kraken_pod_gpu_fb_used", "c"), 7484);
  // MIG mode: nvmlDeviceGetProcessUtilization answers NOT_SUPPORTED; no SM share is made up.
  EXPECT_EQ(page.find("kraken_pod_gpu_sm_util"), std::string::npos);
  std::map<std::string, std::set<double>> memory;
  auto pids = StoredPidsByPod(run.stored, Metric::kProcessUsedMemoryBytes, &memory);
  EXPECT_EQ(pids["c"], (std::set<int64_t>{21198}));
}

// A pod on a shared GPU that opted out (kraken.io/profiling: disabled) leaves no share and
// no stored process; its neighbour keeps both.
TEST(AgentSharedGpuTest, AnOptedOutPodOnASharedGpuLeavesNoShareAndNothingStored) {
  SharedGpuRun run = RunSharedGpuAgent(
      "h100.nvml", kSharedGpu,
      {{"hog-a", SharedPodUid(1), {11327}},
       {"burn", SharedPodUid(2), {11345}, {{"kraken.io/profiling", "disabled"}}}});
  // The page with the pods' processes shows one pod: wait for hog-a's line instead.
  ASSERT_FALSE(run.page.empty()) << "no pass showed hog-a";
  EXPECT_EQ(SharedPodValue(run.page, "kraken_pod_gpu_fb_used", "hog-a"), 2566);
  EXPECT_EQ(run.page.find("pod=\"burn\""), std::string::npos) << run.page;
  std::map<std::string, std::set<double>> memory;
  auto pids = StoredPidsByPod(run.stored, Metric::kProcessUsedMemoryBytes, &memory);
  EXPECT_EQ(pids.count("burn"), 0u);
  EXPECT_EQ(pids["hog-a"], (std::set<int64_t>{11327}));
  for (const Series& s : run.stored) EXPECT_NE(s.entity.pid, 11345);
}

// The agent's pages as Prometheus would answer a range query after scraping them, one
// instant per page 15 s apart; the device's DCGM_FI_DEV_GPU_UTIL and FB series are also
// given to every pod, as dcgm-exporter does on a shared GPU.
std::vector<promql::RangeSeries> SharedPagesAsRanges(const std::vector<std::string>& pages,
                                                     const std::vector<std::string>& pods) {
  std::map<std::vector<std::pair<std::string, std::string>>, promql::RangeSeries> by_labels;
  for (size_t i = 0; i < pages.size(); ++i) {
    for (std::string_view text : Split(pages[i], '\n')) {
      prometheus::ExpositionLine line;
      prometheus::ParseExpositionLine(text, &line);
      if (line.kind != prometheus::LineKind::kSample) continue;
      std::vector<std::pair<std::string, std::string>> labels = {{"__name__", line.metric_name}};
      for (const prometheus::Label& l : line.labels) labels.emplace_back(l.name, l.value);
      std::vector<std::vector<std::pair<std::string, std::string>>> copies;
      if (line.metric_name.rfind("kraken_pod_gpu_", 0) == 0) copies.push_back(labels);
      if (line.metric_name == "DCGM_FI_DEV_GPU_UTIL" || line.metric_name.rfind("DCGM_FI_DEV_FB_", 0) == 0)
        for (const std::string& pod : pods) {
          copies.push_back(labels);
          copies.back().insert(copies.back().end(), {{"container", "main"}, {"namespace", "ml"}, {"pod", pod}});
        }
      for (auto& key : copies) {
        promql::RangeSeries& rs = by_labels[key];
        rs.labels = key;
        rs.times_ms.push_back(1'700'000'000'000 + static_cast<int64_t>(i) * 15'000);
        rs.values.emplace_back(line.value_text);
      }
    }
  }
  std::vector<promql::RangeSeries> out;
  for (auto& [labels, rs] : by_labels) out.push_back(std::move(rs));
  return out;
}

TEST(AgentSharedGpuTest, PoolingCandidatesReadEachPodsOwnShareNotTheCopiedDeviceValues) {
  SharedGpuRun run = RunSharedGpuAgent("h100.nvml", kSharedGpu,
                                       {{"loader", SharedPodUid(1), {11327, 11328}}, {"burn", SharedPodUid(2), {11345}}});
  ASSERT_GE(run.pages.size(), 3u);
  promql::PodProfiles profiles = promql::BuildPodProfiles(SharedPagesAsRanges(run.pages, {"loader", "burn"}), "test");
  ASSERT_EQ(profiles.by_pod.size(), 2u);
  std::vector<pooling::PodGpuUse> uses;
  for (auto& [key, profile] : profiles.by_pod) {
    // The copied device series of GPU_UTIL and FB_USED are gone; FB_TOTAL/FREE stay (no share for them).
    for (const Series& s : profile.series) EXPECT_NE(s.source_name, "DCGM_FI_DEV_GPU_UTIL") << key.pod;
    for (pooling::PodGpuUse& use : pooling::PodGpuUses(profile, key.namespace_name, key.pod, nullptr))
      uses.push_back(std::move(use));
  }
  ASSERT_EQ(uses.size(), 2u);
  const pooling::PodGpuUse& burn = uses[0].pod == "burn" ? uses[0] : uses[1];
  const pooling::PodGpuUse& loader = uses[0].pod == "loader" ? uses[0] : uses[1];
  EXPECT_DOUBLE_EQ(burn.demand.gpu_busy.p95, 0.99);
  EXPECT_DOUBLE_EQ(loader.demand.gpu_busy.p95, 0.0);
  EXPECT_DOUBLE_EQ(loader.demand.memory_bytes.max, 4108.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(burn.demand.memory_bytes.max, 16452157440.0);
  pooling::PoolingReport report = pooling::FindPoolingCandidates(uses);
  ASSERT_EQ(report.pods.size(), 2u);
  for (const pooling::PodRecommendation& r : report.pods) {
    const pooling::PodGpuUse& use = uses[static_cast<size_t>(r.use)];
    std::printf("%s: %s %s\n", use.pod.c_str(), pooling::PoolActionName(r.action), r.detail.c_str());
    // gpu-burn keeps its GPU, busy; the memory hogs, busy 0 by their own processes, fit a
    // 1g.10gb slice (the copied device values, busy 99 %, would keep them as busy), which
    // alone on its GPU frees none: kept, saying so.
    EXPECT_EQ(r.action, pooling::PoolAction::kKeep);
    if (use.pod == "burn") {
      EXPECT_EQ(r.detail.rfind("busy: compute p95", 0), 0u) << r.detail;
    } else {
      EXPECT_EQ(r.detail.rfind("not sliced: alone on its GPU: 1g.10gb covers it", 0), 0u) << r.detail;
    }
  }
}

}  // namespace
}  // namespace kraken::agent
