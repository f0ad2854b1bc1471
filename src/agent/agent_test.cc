#include "agent/agent.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <set>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <thread>

#include "agent/metric_groups.h"
#include "agent/metrics_server.h"
#include "agent/sample_ring.h"
#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "base/text.h"
#include "agent/agent_test_support.h"

namespace kraken::agent {
namespace {

using testing::OpenReplay;

SampleBatch BatchAt(TimeNs time_ns, double util) {
  SampleBatch batch;
  batch.time_ns = time_ns;
  batch.entities.resize(1);
  batch.entities[0].gpu_index = 0;
  batch.values = {{Metric::kGpuUtilPct, 0, util, "u"}, {Metric::kPowerW, 0, 100 + util, "p"},
                  {Metric::kProcessUsedMemoryBytes, 0, 1, "m"}};
  return batch;
}

TEST(SampleRingTest, KeepsTheNewestPassesUpToItsCapacity) {
  EXPECT_EQ(RingCapacity(60'000'000'000, 100'000'000), 600u);
  EXPECT_EQ(RingCapacity(1'000'000, 100'000'000), 1u);
  SampleRing ring(3);
  EXPECT_EQ(ring.Latest(), nullptr);
  for (int i = 0; i < 5; ++i) ring.Push(BatchAt(i, i * 10));
  ASSERT_EQ(ring.size(), 3u);
  EXPECT_EQ(ring.FromNewest(0).time_ns, 4);
  EXPECT_EQ(ring.FromNewest(1).time_ns, 3);
  EXPECT_EQ(ring.FromNewest(2).time_ns, 2);
  EXPECT_EQ(ring.Latest()->values[0].value, 40);
}

TEST(MetricGroupsTest, DisabledGroupsAreDroppedFromTheCopy) {
  config::MetricGroups groups;
  groups.power = false;
  groups.processes = false;
  SampleBatch in = BatchAt(7, 55);
  SampleBatch out;
  CopyEnabledMetrics(groups, in, out);
  ASSERT_EQ(out.values.size(), 1u);
  EXPECT_EQ(out.values[0].metric, Metric::kGpuUtilPct);
  EXPECT_EQ(out.time_ns, 7);
  EXPECT_EQ(in.values.size(), 3u);
  EXPECT_FALSE(MetricEnabled(groups, Metric::kEnergyMj));
  EXPECT_TRUE(MetricEnabled(groups, Metric::kSmActiveRatio));
}

// The agent on the replayed 8 x H100 node (tests/fixtures/nvml/h100x8.nvml): every pass is
// one frame of the capture; frame 0 has gpu util 0, 69 W, SM clock 345 MHz, 41 C, memory
// used 0 of 85520809984 B.
TEST(AgentTest, SamplesIntoTheRingRendersAndCommitsToTheStore) {
  ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100x8.nvml").c_str(), 1);
  nvml::NvmlSamplerOptions sampler_options;
  sampler_options.proc_root = "";
  auto session = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, sampler_options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  ASSERT_EQ(session->sampler->devices().size(), 8u);
  std::string db = testing::MakeTempDir("agent") + "/kraken.db";
  auto store = ProfileStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().message();

  AgentOptions options;
  options.interval_ns = 1'000'000'000;  // the first pass is Start's; the thread's comes 1 s later
  options.ring_ns = 10'000'000'000;
  options.hostname = "replay-node";
  Agent agent(options, *session->sampler, store->get());
  ASSERT_TRUE(agent.Start().ok());
  std::string text;
  agent.RenderMetrics(text);
  EXPECT_EQ(agent.samples_total(), 1);
  EXPECT_NE(text.find("DCGM_FI_DEV_POWER_USAGE{gpu=\"7\",UUID="), std::string::npos) << text;
  int power_lines = 0;
  for (std::string_view line : Split(text, '\n')) {
    if (line.rfind("DCGM_FI_DEV_POWER_USAGE{", 0) == 0) {
      ++power_lines;
      EXPECT_TRUE(line.ends_with("} 69")) << line;
    }
    if (line.rfind("DCGM_FI_DEV_SM_CLOCK{", 0) == 0) {
      EXPECT_TRUE(line.ends_with("} 345")) << line;
    }
    if (line.rfind("DCGM_FI_DEV_GPU_TEMP{", 0) == 0) {
      EXPECT_TRUE(line.ends_with("} 41")) << line;
    }
    if (line.rfind("DCGM_FI_DEV_FB_USED{", 0) == 0 && line.find("GPU_I_ID") == std::string_view::npos) {
      EXPECT_TRUE(line.ends_with("} 0")) << line;
    }
  }
  EXPECT_EQ(power_lines, 8);
  EXPECT_NE(text.find("kraken_agent_samples_total{Hostname=\"replay-node\"} 1\n"), std::string::npos);
  ASSERT_TRUE(agent.Stop().ok());
  EXPECT_EQ(agent.committed_profiles(), 1);

  auto profiles = (*store)->ListProfiles();
  ASSERT_TRUE(profiles.ok());
  ASSERT_EQ(profiles->size(), 1u);
  EXPECT_EQ((*profiles)[0].kind, "live");
  EXPECT_EQ((*profiles)[0].device_names.size(), 8u);
  auto loaded = (*store)->LoadProfile((*profiles)[0].id);
  ASSERT_TRUE(loaded.ok());
  int power_series = 0;
  for (const Series& s : loaded->series)
    if (s.metric == Metric::kPowerW) {
      ++power_series;
      ASSERT_FALSE(s.samples.empty());
      EXPECT_EQ(s.samples[0].value, 69);
    }
  EXPECT_EQ(power_series, 8);
}

// An agent at 20 ms with a 10 s ring over the replay of `capture_path`, its sampler's slow
// reads 10 s apart (only the first pass makes them): started, stopped after four passes,
// its /metrics text as it was then. `agent` stays null when it could not run.
struct SlowReadsAgent {
  explicit SlowReadsAgent(const std::string& capture_path) {
    ::setenv("KRAKEN_NVML_REPLAY", capture_path.c_str(), 1);
    nvml::NvmlSamplerOptions sampler_options;
    sampler_options.proc_root = "";
    sampler_options.slow_interval_us = 10'000'000;
    auto opened = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, sampler_options);
    if (!opened.ok()) {
      ADD_FAILURE() << opened.status().message();
      return;
    }
    session = std::move(*opened);
    AgentOptions options;
    options.interval_ns = 20'000'000;
    options.ring_ns = 10'000'000'000;
    options.hostname = "replay-node";
    auto started = std::make_unique<Agent>(options, *session.sampler, nullptr);
    if (!started->Start().ok()) {
      ADD_FAILURE() << "the agent did not start";
      return;
    }
    while (started->samples_total() < 4) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    started->RenderMetrics(metrics);
    EXPECT_TRUE(started->Stop().ok());
    EXPECT_FALSE(session.sampler->last_pass_was_slow());
    agent = std::move(started);
  }

  nvml::NvmlSession session;
  std::unique_ptr<Agent> agent;
  std::string metrics;
};

// The sampler reads PCIe throughput only every slow interval (10 s here: the first pass
// only); /metrics keeps showing each GPU's last value on the passes in between, while the
// passes themselves (ring, store) have none.
TEST(AgentTest, MetricsHoldTheSlowValuesBetweenSlowReads) {
  SlowReadsAgent run(testing::SourceDir() + "/tests/fixtures/nvml/h100x8.nvml");
  ASSERT_NE(run.agent, nullptr);
  const std::string& text = run.metrics;
  Agent& agent = *run.agent;
  int pcie_lines = 0;
  for (std::string_view line : Split(text, '\n')) pcie_lines += line.rfind("DCGM_FI_PROF_PCIE_TX_BYTES{", 0) == 0;
  EXPECT_EQ(pcie_lines, 8) << text;
  EXPECT_NE(text.find("kraken_agent_sample_duration_seconds{"), std::string::npos);
  std::string ring;
  agent.RenderRing(0, Agent::kMaxRingPassesServed, ring);
  // Only the ring's first pass has PCIe values (one per GPU); GPU utilization is in every one.
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(ring);
  int64_t passes = 0, pcie_passes = 0, util_passes = 0;
  for (simdjson::dom::element pass : doc["passes"].get_array()) {
    int64_t pcie = 0, util = 0;
    for (simdjson::dom::element sample : pass["samples"].get_array()) {
      std::string_view metric = sample["metric"].get_string();
      pcie += metric == "pcie_tx_bytes_per_s";
      util += metric == "gpu_util_pct";
    }
    ++passes;
    pcie_passes += pcie > 0;
    util_passes += util == 8;
    EXPECT_TRUE(pcie == 0 || pcie == 8) << pcie;
  }
  EXPECT_GE(passes, 4);
  EXPECT_EQ(pcie_passes, 1);
  EXPECT_EQ(util_passes, passes);
}

// The health counters (remapped rows, NVLink error totals) of a small inline capture of
// one GPU: the sampler reads them on the slow cadence (the first pass only here), and
// /metrics shows them under dcgm-exporter's names on every pass; a field the capture
// answers NOT_SUPPORTED (retired pages, NVLink recovery) has no series.
TEST(AgentTest, MetricsShowTheHealthCountersUnderDcgmNames) {
  std::string capture = "kraken-nvml-capture 1\n[capture]\nstart_unix_us = 0\ninterval_us = 100000\n"
                        "[device 0]\nname = Test GPU\nuuid = GPU-health\narchitecture = 7\n[frame 0]\ntime_us = 0\n"
                        "gpu0.utilization = 50 20\ngpu0.field.142 = uint 3\ngpu0.field.143 = uint 1\n"
                        "gpu0.field.144 = uint 1\ngpu0.field.145 = uint 0\ngpu0.field.29 = !NOT_SUPPORTED\n"
                        "gpu0.field.38.4294967295 = ullong 7\ngpu0.field.52.4294967295 = ullong 12\n";
  std::string path = testing::MakeTempDir("agent_health") + "/health.nvml";
  std::ofstream(path) << capture;
  SlowReadsAgent run(path);
  ASSERT_NE(run.agent, nullptr);
  const std::string& text = run.metrics;  // the values are held from the first pass
  const std::string labels =
      "{gpu=\"0\",UUID=\"GPU-health\",device=\"nvidia0\",modelName=\"Test GPU\","
      "Hostname=\"replay-node\"}";
  for (const char* line : {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS%s 3\n", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS%s 1\n",
                           "DCGM_FI_DEV_ROW_REMAP_PENDING%s 1\n", "DCGM_FI_DEV_ROW_REMAP_FAILURE%s 0\n",
                           "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL%s 7\n",
                           "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL%s 12\n"}) {
    std::string expected(line);
    expected.replace(expected.find("%s"), 2, labels);
    EXPECT_NE(text.find(expected), std::string::npos) << expected << text;
  }
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS counter\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_ROW_REMAP_PENDING gauge\n"), std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_DEV_RETIRED_SBE"), std::string::npos);
  EXPECT_EQ(text.find("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL"), std::string::npos);
}

// MIG instances of the replayed H100 (tests/fixtures/nvml/h100-mig.nvml, frame 0): GPU
// instance 2 is a 3g.40gb with 27262976 B used of 42412802048 B (26 and 40448 MiB), GPU
// instance 9 a 1g.10gb with 9437184 B used (9 MiB); the whole GPU 61865984 B (59 MiB).
TEST(AgentTest, MigInstancesGetDcgmExportersInstanceLabels) {
  nvml::NvmlSession session = OpenReplay("h100-mig.nvml");
  ASSERT_NE(session.sampler, nullptr);
  AgentOptions options;
  options.interval_ns = 1'000'000'000;
  options.hostname = "replay-node";
  Agent agent(options, *session.sampler, nullptr);
  ASSERT_TRUE(agent.Start().ok());
  std::string text;
  agent.RenderMetrics(text);
  ASSERT_TRUE(agent.Stop().ok());
  EXPECT_NE(text.find("GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\",Hostname=\"replay-node\"} 26\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\",Hostname=\"replay-node\"} 9\n"), std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_DEV_FB_TOTAL{gpu=\"0\""), std::string::npos);
  EXPECT_NE(text.find("GPU_I_ID=\"2\",Hostname=\"replay-node\"} 40448\n"), std::string::npos);
  EXPECT_NE(text.find("modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"replay-node\"} 59\n"), std::string::npos);
  EXPECT_EQ(agent.committed_profiles(), 0);  // no store
}

// One live profile per commit interval; each is listed once committed. With a retention
// shorter than the run, the profiles committed before are deleted after each commit.
TEST(AgentTest, CommitIntervalRotatesProfilesAndRetentionDeletesOldOnes) {
  nvml::NvmlSession session = OpenReplay("h100.nvml");
  ASSERT_NE(session.sampler, nullptr);
  for (int64_t retention_ns : {int64_t{0}, int64_t{1}}) {
    auto store = ProfileStore::Open(testing::MakeTempDir("agent_rotation") + "/kraken.db");
    ASSERT_TRUE(store.ok());
    AgentOptions options;
    options.interval_ns = 50'000'000;
    options.commit_interval_ns = 200'000'000;
    options.retention_ns = retention_ns;
    Agent agent(options, *session.sampler, store->get());
    ASSERT_TRUE(agent.Start().ok());
    while (agent.committed_profiles() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(agent.Stop().ok());
    auto listed = (*store)->ListProfiles();
    ASSERT_TRUE(listed.ok());
    if (retention_ns == 0) {
      EXPECT_EQ(static_cast<int64_t>(listed->size()), agent.committed_profiles());
      EXPECT_GE(listed->size(), 2u);  // two rotations, and the final commit when it had a pass
      for (const StoredProfileInfo& info : *listed) EXPECT_GT(info.samples, 0) << "profile " << info.id;
    } else {
      EXPECT_EQ(listed->size(), 0u);  // 1 ns: everything committed is already too old
    }
  }
}

// A stop right after a rotation, before the next pass, leaves the profile just begun
// empty: it is dropped, not committed, so every listed profile has samples.
TEST(AgentTest, AProfileWithNoPassIsDroppedAtStop) {
  nvml::NvmlSession session = OpenReplay("h100.nvml");
  ASSERT_NE(session.sampler, nullptr);
  auto store = ProfileStore::Open(testing::MakeTempDir("agent_empty_profile") + "/kraken.db");
  ASSERT_TRUE(store.ok());
  AgentOptions options;
  options.interval_ns = 3600'000'000'000;  // one pass at start, then none during the test
  options.commit_interval_ns = 1;          // that pass rotates the profile at once
  Agent agent(options, *session.sampler, store->get());
  ASSERT_TRUE(agent.Start().ok());
  while (agent.committed_profiles() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(agent.Stop().ok());
  EXPECT_EQ(agent.committed_profiles(), 1);
  auto listed = (*store)->ListProfiles();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_GT(listed->front().samples, 0);
}

// The kraken_* analysis runs at start and then every analysis_interval, never per pass:
// with an hour's interval the figures stay those of the first pass while passes go on.
TEST(AgentTest, TheWindowAnalysisRunsPerIntervalNotPerPass) {
  nvml::NvmlSession session = OpenReplay("h100.nvml");
  ASSERT_NE(session.sampler, nullptr);
  AgentOptions options;
  options.interval_ns = 10'000'000;
  options.ring_ns = 1'000'000'000;
  options.analysis_window_ns = 1'000'000'000;
  options.analysis_interval_ns = 3600'000'000'000;
  options.hostname = "replay-node";
  Agent agent(options, *session.sampler, nullptr);
  ASSERT_TRUE(agent.Start().ok());
  while (agent.samples_total() < 20) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::string text;
  agent.RenderMetrics(text);
  ASSERT_TRUE(agent.Stop().ok());
  EXPECT_NE(text.find("kraken_analysis_passes{gpu=\"0\""), std::string::npos) << text;
  EXPECT_NE(text.find("kraken_analysis_window_seconds{gpu=\"0\""), std::string::npos);
  int lines = 0;
  for (std::string_view line : Split(text, '\n')) {
    if (line.rfind("kraken_analysis_passes{", 0) == 0) {
      ++lines;
      EXPECT_TRUE(line.ends_with("} 1")) << line;
    }
  }
  EXPECT_EQ(lines, 1);
}

}  // namespace
}  // namespace kraken::agent

namespace kraken::agent {
namespace {

// The live view's source before the first commit (docs/agent.md): GET /api/v1/ring of the
// agent's HTTP server over loopback answers the ring's passes, 8 replayed GPUs each, while
// the store has nothing committed yet; since_ns leaves out what a client already has.
TEST(AgentTest, TheRingIsServedOverHttpBeforeAnyCommit) {
  ::setenv("KRAKEN_NVML_REPLAY", (testing::SourceDir() + "/tests/fixtures/nvml/h100x8.nvml").c_str(), 1);
  nvml::NvmlSamplerOptions sampler_options;
  sampler_options.proc_root = "";
  auto session = nvml::OpenNvmlSession(KRAKEN_NVML_REPLAY_LIBRARY, sampler_options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::string db = testing::MakeTempDir("agent_ring") + "/kraken.db";
  auto store = ProfileStore::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  AgentOptions options;
  options.interval_ns = 100'000'000;
  options.hostname = "replay-node";
  Agent agent(options, *session->sampler, store->get());
  MetricsServer server([&agent](std::string& out) { agent.RenderMetrics(out); },
                       [&agent](int64_t since_ns, size_t max_passes, std::string& out) {
                         agent.RenderRing(since_ns, max_passes, out);
                       });
  ASSERT_TRUE(server.Start("127.0.0.1:0").ok());
  ASSERT_TRUE(agent.Start().ok());
  while (agent.ring_size() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(20));

  httplib::Client client("127.0.0.1", server.port());
  auto ring = client.Get("/api/v1/ring");
  ASSERT_TRUE(ring);
  ASSERT_EQ(ring->status, 200) << ring->body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(ring->body);
  EXPECT_EQ(std::string_view(doc["hostname"].get_string().value()), "replay-node");
  EXPECT_EQ(doc["committed_profiles"].get_int64().value(), 0);
  simdjson::dom::array passes = doc["passes"];
  ASSERT_GE(passes.size(), 3u);
  int64_t newest = 0, previous = 0;
  for (simdjson::dom::element pass : passes) {
    newest = pass["time_ns"].get_int64().value();
    EXPECT_GT(newest, previous);  // oldest first
    previous = newest;
    std::set<int64_t> gpus;
    size_t power = 0;
    for (simdjson::dom::element s : pass["samples"].get_array()) {
      gpus.insert(s["gpu_index"].get_int64().value());
      if (std::string_view(s["metric"].get_string().value()) == "power_w") {
        ++power;
        EXPECT_EQ(s["value"].get_double().value(), 69);  // frame 0 of the replayed capture
      }
    }
    EXPECT_EQ(gpus.size(), 8u);
    EXPECT_EQ(power, 8u);
  }
  auto listed = (*store)->ListProfiles();
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());  // nothing committed: the store's readers see no profile

  auto after = client.Get("/api/v1/ring?since_ns=" + std::to_string(newest));
  ASSERT_TRUE(after);
  simdjson::dom::parser parser2;
  for (simdjson::dom::element pass : parser2.parse(after->body)["passes"].get_array())
    EXPECT_GT(pass["time_ns"].get_int64().value(), newest);
  // max_passes=1: the newest pass alone (what `kraken serve --agent` asks for).
  auto last = client.Get("/api/v1/ring?since_ns=0&max_passes=1");
  ASSERT_TRUE(last);
  ASSERT_EQ(last->status, 200) << last->body;
  simdjson::dom::parser parser3;
  simdjson::dom::array newest_only = parser3.parse(last->body)["passes"];
  ASSERT_EQ(newest_only.size(), 1u);
  EXPECT_GE(newest_only.at(0)["time_ns"].get_int64().value(), newest);
  for (const char* query : {"since_ns=soon", "max_passes=0", "max_passes=-3", "max_passes=all"}) {
    auto bad = client.Get(std::string("/api/v1/ring?") + query);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400) << query;
  }
  server.Stop();
  ASSERT_TRUE(agent.Stop().ok());
}

}  // namespace
}  // namespace kraken::agent
