// Helpers the agent tests share (one definition each, so the suite can be compiled as a
// unity build).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "agent/agent.h"
#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "collectors/nvml/nvml_sampler.h"
#include "k8s/client/kube_client.h"
#include "k8s/attribution/node_pods.h"
#include "k8s/attribution/pod_resources/pod_resources_client.h"

namespace kraken::testing {

// The collector on libkraken_nvml_replay.so replaying tests/fixtures/nvml/FIXTURE, through
// the driver's dlopen path.
inline nvml::NvmlSession OpenReplay(const std::string& fixture,
                                     int64_t slow_interval_us = nvml::NvmlSamplerOptions::kDefaultSlowIntervalUs) {
  ::setenv("KRAKEN_NVML_REPLAY", (SourceDir() + "/tests/fixtures/nvml/" + fixture).c_str(), 1);
  nvml::NvmlSamplerOptions options;
  options.proc_root = "";  // the captured pids are not this machine's processes
  options.slow_interval_us = slow_interval_us;
  auto session = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  return session.ok() ? std::move(*session) : nvml::NvmlSession{};
}

// One run of a pod-aware agent: the agent (stopped), its /metrics page at the end and its
// sampling passes.
struct PodAwareAgentRun {
  std::unique_ptr<agent::Agent> agent;
  std::string metrics;
  int64_t passes = 0;
};

// The agent at 100 ms with both pod sources of the pod tests (the kubelet on `socket`, the
// API server's pod LIST of `node` through `client`), run for at least 20 passes and 2.3 s:
// past the 1 s analysis interval twice and a 1 s pod interval at least once.
inline PodAwareAgentRun RunPodAwareAgent(nvml::NvmlSampler& sampler, ProfileStore* store, const std::string& socket,
                                         k8s::KubeClient& client, const std::string& node) {
  agent::AgentOptions options;
  options.interval_ns = 100'000'000;
  options.ring_ns = 10'000'000'000;
  options.analysis_window_ns = 10'000'000'000;
  options.analysis_interval_ns = 1'000'000'000;
  options.hostname = "replay-node";
  options.pods.list = [socket] { return k8s::ListPodDevices(socket); };
  options.pods.source = socket;
  options.pods.list_pods = [&client, node] { return k8s::ListNodePods(client, node); };
  options.pods.pods_source = "the API server (node " + node + ")";
  options.pods.agent_interval_ns = options.interval_ns;
  PodAwareAgentRun run;
  run.agent = std::make_unique<agent::Agent>(options, sampler, store);
  agent::Agent& agent = *run.agent;
  auto started = std::chrono::steady_clock::now();
  EXPECT_TRUE(agent.Start().ok());
  while (agent.samples_total() < 20 || std::chrono::steady_clock::now() - started < std::chrono::milliseconds(2300))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  agent.RenderMetrics(run.metrics);
  EXPECT_TRUE(agent.Stop().ok());
  run.passes = agent.samples_total();
  return run;
}

}  // namespace kraken::testing
