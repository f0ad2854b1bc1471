// End-to-end tests of `kraken agent` and `kraken config`: the real binary on the replayed
// 8 x H100 node (tests/fixtures/nvml/h100x8.nvml), scraped over loopback, stopped with
// SIGTERM; config precedence and errors. A real Prometheus scraping the agent is in
// agent_prometheus_cli_test.cc.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"
#include "cli/agent_cli_testing.h"

namespace kraken {
namespace {

using namespace std::chrono_literals;
using namespace agent_cli_testing;  // NOLINT: the shared helpers, as if they were this file's

constexpr double kMiB = 1024.0 * 1024.0;

TEST(AgentCliTest, ServesTheReplayedNodeAndCommitsItsProfileOnSigterm) {
  RunningAgent agent = StartReplayedAgent("h100x8.nvml");
  ASSERT_GT(agent.port, 0) << agent.process->Log();
  httplib::Client client("127.0.0.1", agent.port);
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok\n");
  EXPECT_EQ(client.Get("/nothing")->status, 404);

  auto scrape = client.Get("/metrics");
  ASSERT_TRUE(scrape);
  ASSERT_EQ(scrape->status, 200);
  EXPECT_EQ(scrape->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = scrape->body;

  std::map<std::string, double> util = Family(text, "DCGM_FI_DEV_GPU_UTIL");
  std::map<std::string, double> power = Family(text, "DCGM_FI_DEV_POWER_USAGE");
  std::map<std::string, double> clock = Family(text, "DCGM_FI_DEV_SM_CLOCK");
  std::map<std::string, double> temp = Family(text, "DCGM_FI_DEV_GPU_TEMP");
  std::map<std::string, double> used = Family(text, "DCGM_FI_DEV_FB_USED");
  std::map<std::string, double> pcie = Family(text, "DCGM_FI_PROF_PCIE_TX_BYTES");
  ASSERT_EQ(util.size(), 8u) << text;
  ASSERT_EQ(power.size(), 8u);
  std::set<std::string> gpus;
  for (const auto& [labels, value] : util) {
    size_t at = labels.find("gpu=\"");
    gpus.insert(labels.substr(at + 5, labels.find('"', at + 5) - at - 5));
    EXPECT_NE(labels.find("modelName=\"NVIDIA H100 80GB HBM3\""), std::string::npos) << labels;
    EXPECT_NE(labels.find("UUID=\"GPU-"), std::string::npos) << labels;
    EXPECT_NE(labels.find("pci_bus_id=\""), std::string::npos) << labels;
  }
  EXPECT_EQ(gpus, (std::set<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"}));

  // The scrape shows one pass, i.e. one frame of the capture: find it by gpu0's values;
  // every GPU (a copy of gpu0) shows exactly that frame.
  std::vector<FrameValues> frames = ReadCaptureFrames(AgentNvmlFixture("h100x8.nvml"));
  ASSERT_EQ(frames.size(), 10u);
  const std::string gpu0 = util.begin()->first;
  const FrameValues* match = nullptr;
  for (const FrameValues& f : frames)
    if (f.util_pct == util[gpu0] && f.power_w == power[gpu0] && f.sm_clock_mhz == clock[gpu0] &&
        f.gpu_temp_c == temp[gpu0])
      match = &f;
  ASSERT_NE(match, nullptr) << text;
  for (const auto& [labels, value] : util) {
    EXPECT_EQ(value, match->util_pct) << labels;
    EXPECT_EQ(power[labels], match->power_w) << labels;
    EXPECT_EQ(clock[labels], match->sm_clock_mhz) << labels;
    EXPECT_EQ(temp[labels], match->gpu_temp_c) << labels;
    EXPECT_EQ(used[labels], match->fb_used_bytes / kMiB) << labels;
    EXPECT_EQ(pcie[labels], match->pcie_tx_kbps * 1000) << labels;
  }
  EXPECT_NE(text.find("# TYPE DCGM_FI_DEV_ECC_SBE_VOL_TOTAL counter"), std::string::npos);
  EXPECT_EQ(Family(text, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER").size(), 8u);
  // The capture (from nvidia-smi) has no energy counter: absent, never 0.
  EXPECT_EQ(text.find("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), std::string::npos);
  EXPECT_NE(text.find("kraken_agent_samples_total{"), std::string::npos);

  // Let it run some passes, then stop it the way a service manager does.
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(agent.process->Stop(SIGTERM, 15s), 0) << agent.process->Log();
  std::string log = agent.process->Log();
  EXPECT_NE(log.find("kraken agent: info: SIGTERM: stopping"), std::string::npos) << log;
  EXPECT_NE(log.find("1 profiles committed"), std::string::npos) << log;

  testing::ChildProcess list({KRAKEN_BINARY_PATH, "list", "--json", "--db", agent.db},
                             testing::MakeTempDir("agent_list") + "/out");
  ASSERT_EQ(list.Stop(0, 30s), 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string listing = list.Log();
  ASSERT_EQ(parser.parse(listing).get(doc), simdjson::SUCCESS) << listing;
  simdjson::dom::array profiles;
  ASSERT_EQ(doc["profiles"].get(profiles), simdjson::SUCCESS) << listing;
  ASSERT_EQ(profiles.size(), 1u);
  std::string_view kind;
  ASSERT_EQ(profiles.at(0)["kind"].get(kind), simdjson::SUCCESS);
  EXPECT_EQ(kind, "live");
  simdjson::dom::array devices;
  ASSERT_EQ(profiles.at(0)["devices"].get(devices), simdjson::SUCCESS) << listing;
  EXPECT_EQ(devices.size(), 8u);
}

TEST(AgentCliTest, WithoutNvmlItIsAOneLineErrorWithExitCode2) {
  std::string dir = testing::MakeTempDir("agent_nonvml");
  testing::ChildProcess agent({KRAKEN_BINARY_PATH, "agent", "--no-store", "--nvml-library",
                               "/nonexistent/libnvidia-ml.so.1"},
                              dir + "/log");
  EXPECT_EQ(agent.Stop(0, 30s), 2);
  std::string log = agent.Log();
  EXPECT_EQ(log.rfind("kraken: error: cannot load the NVML library /nonexistent/libnvidia-ml.so.1 (", 0), 0u) << log;
  EXPECT_EQ(log.find('\n'), log.size() - 1) << log;
}

TEST(AgentCliTest, DbAndNoStoreExcludeEachOther) {
  std::string dir = testing::MakeTempDir("agent_db_nostore");
  testing::ChildProcess run({KRAKEN_BINARY_PATH, "agent", "--no-store", "--db", dir + "/k.db"}, dir + "/log");
  EXPECT_EQ(run.Stop(0, 30s), 2);
  EXPECT_EQ(run.Log(), "kraken: error: --db excludes --no-store (see --help)\n");
}

TEST(AgentCliTest, AnAddressInUseIsAnErrorBeforeAnythingIsStored) {
  RunningAgent first = StartReplayedAgent("h100.nvml", {"--no-store"});
  ASSERT_GT(first.port, 0) << first.process->Log();
  std::string dir = testing::MakeTempDir("agent_busy");
  std::string listen = "127.0.0.1:" + std::to_string(first.port);
  testing::ChildProcess second({KRAKEN_BINARY_PATH, "agent", "--listen", listen, "--db", dir + "/kraken.db",
                                "--nvml-library", KRAKEN_NVML_REPLAY_LIBRARY},
                               dir + "/log");
  EXPECT_EQ(second.Stop(0, 30s), 2);
  EXPECT_EQ(second.Log(),
            "kraken: error: cannot listen on " + listen + ": the port is already in use by another process\n");
  testing::ChildProcess list({KRAKEN_BINARY_PATH, "list", "--db", dir + "/kraken.db"}, dir + "/list");
  EXPECT_EQ(list.Stop(0, 30s), 0);
  EXPECT_EQ(list.Log().find("live"), std::string::npos) << list.Log();
  EXPECT_EQ(first.process->Stop(SIGTERM, 15s), 0);
}

// The kraken_* families of the window analysis, from the real binary on the replayed
// 8 x H100 node: a 1 s ring at 100 ms holds 10 passes, i.e. one whole round of the
// capture's frames whatever frame it starts at (5 idle at 0 %, 5 under gpu-burn at 100 %,
// 0 and 20780679168 B used), analysed every second.
TEST(AgentCliTest, ExportsTheWindowAnalysisPerGpuWithTheDcgmLabels) {
  std::string dir = testing::MakeTempDir("agent_window");
  std::string config = WriteText(dir + "/kraken.yaml",
                                 "agent:\n  ring: 1s\n  analysis_window: 1s\n  analysis_interval: 1s\n");
  RunningAgent agent = StartReplayedAgent("h100x8.nvml", {"--no-store", "--config", config});
  ASSERT_GT(agent.port, 0) << agent.process->Log();
  httplib::Client client("127.0.0.1", agent.port);
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto scrape = client.Get("/metrics");
    ASSERT_TRUE(scrape);
    text = scrape->body;
    std::map<std::string, double> passes = Family(text, "kraken_analysis_passes");
    if (passes.size() == 8 &&
        std::all_of(passes.begin(), passes.end(), [](const auto& p) { return p.second == 10; }))
      break;
    std::this_thread::sleep_for(200ms);
  }
  std::map<std::string, double> util = Family(text, "DCGM_FI_DEV_GPU_UTIL");
  std::map<std::string, double> p95 = Family(text, "kraken_gpu_util_p95");
  std::map<std::string, double> idle = Family(text, "kraken_gpu_idle_ratio");
  std::map<std::string, double> peak = Family(text, "kraken_memory_peak_bytes");
  std::map<std::string, double> window = Family(text, "kraken_analysis_window_seconds");
  std::map<std::string, double> passes = Family(text, "kraken_analysis_passes");
  ASSERT_EQ(util.size(), 8u) << text;
  ASSERT_EQ(p95.size(), 8u) << text;
  for (const auto& [labels, value] : util) {  // the GPU's own label set, value by value
    EXPECT_EQ(passes[labels], 10) << labels;
    EXPECT_EQ(p95[labels], 1.0) << labels;
    EXPECT_EQ(idle[labels], 0.5) << labels;
    EXPECT_EQ(peak[labels], 20780679168.0) << labels;
    EXPECT_GT(window[labels], 0.8) << labels;  // 9 intervals of 100 ms, give or take scheduling
    EXPECT_LT(window[labels], 1.5) << labels;
    std::string info = labels;
    info.pop_back();
    EXPECT_NE(text.find("kraken_workload_info" + info + ",workload_type=\"unknown\",pooling_action=\"keep\"} 1\n"),
              std::string::npos)
        << labels;
  }
  EXPECT_NE(text.find("# TYPE kraken_gpu_util_p95 gauge\n"), std::string::npos);
  EXPECT_NE(text.find("# HELP kraken_workload_info "), std::string::npos);
  // The capture has no GPM activity: no bound, not a guessed one.
  EXPECT_EQ(text.find("kraken_gpu_bound_info"), std::string::npos);
  EXPECT_EQ(agent.process->Stop(SIGTERM, 15s), 0) << agent.process->Log();
}

TEST(AgentCliTest, AnAnalysisWindowLongerThanTheRingIsAnError) {
  std::string dir = testing::MakeTempDir("agent_window_bad");
  testing::ChildProcess run({KRAKEN_BINARY_PATH, "agent", "--no-store", "--analysis-window", "5m"}, dir + "/log");
  EXPECT_EQ(run.Stop(0, 30s), 2);
  EXPECT_EQ(run.Log(),
            "kraken: error: agent.analysis_window (5m) is longer than agent.ring (1m), which holds the passes it "
            "analyses: raise agent.ring\n");
}

TEST(ConfigCliTest, PrintShowsEachValueAndWhereItCameFrom) {
  std::string dir = testing::MakeTempDir("config_cli");
  std::string file = WriteText(dir + "/kraken.yaml", "sampling:\n  interval: 250ms\nagent:\n  listen: 0.0.0.0:9500\n");
  ::setenv("KRAKEN_LOG_LEVEL", "debug", 1);
  testing::ChildProcess print({KRAKEN_BINARY_PATH, "config", "--print", "--json", "--config", file}, dir + "/out");
  EXPECT_EQ(print.Stop(0, 30s), 0);
  ::unsetenv("KRAKEN_LOG_LEVEL");
  std::string out = print.Log();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(out).get(doc), simdjson::SUCCESS) << out;
  std::map<std::string, std::pair<std::string, std::string>> settings;
  for (simdjson::dom::element s : doc["settings"].get_array()) {
    std::string_view key, value, source;
    ASSERT_EQ(s["key"].get(key), simdjson::SUCCESS);
    ASSERT_EQ(s["value"].get(value), simdjson::SUCCESS);
    ASSERT_EQ(s["source"].get(source), simdjson::SUCCESS);
    settings[std::string(key)] = {std::string(value), std::string(source)};
  }
  // 27 (sampling.slow_interval among them) + upload.{url,token_file,spool,spool_max_bytes,retry_for}
  EXPECT_EQ(settings.size(), 32u);
  EXPECT_EQ(settings["sampling.slow_interval"], std::make_pair(std::string("1s"), std::string("default")));
  EXPECT_EQ(settings["upload.retry_for"], std::make_pair(std::string("30s"), std::string("default")));
  EXPECT_EQ(settings["agent.node_name"], std::make_pair(std::string(""), std::string("default")));
  EXPECT_EQ(settings["agent.pod_resources_socket"],
            std::make_pair(std::string("/var/lib/kubelet/pod-resources/kubelet.sock"), std::string("default")));
  EXPECT_EQ(settings["agent.pod_refresh"], std::make_pair(std::string("10s"), std::string("default")));
  EXPECT_EQ(settings["sampling.interval"], std::make_pair(std::string("250ms"), "file " + file + ":2"));
  EXPECT_EQ(settings["agent.listen"], std::make_pair(std::string("0.0.0.0:9500"), "file " + file + ":4"));
  EXPECT_EQ(settings["log_level"], std::make_pair(std::string("debug"), std::string("env KRAKEN_LOG_LEVEL")));
  EXPECT_EQ(settings["store.retention"], std::make_pair(std::string("7d"), std::string("default")));
}

TEST(ConfigCliTest, ABadKeyIsAnErrorNamingFileLineAndKeyWithExitCode2) {
  std::string dir = testing::MakeTempDir("config_cli_bad");
  std::string file = WriteText(dir + "/bad.yaml", "store:\n  path: /x.db\n  retension: 7d\n");
  for (const char* command : {"config", "agent"}) {
    testing::ChildProcess run({KRAKEN_BINARY_PATH, command, "--config", file}, dir + "/out");
    EXPECT_EQ(run.Stop(0, 30s), 2) << command;
    EXPECT_EQ(run.Log(), "kraken: error: " + file +
                             ":3: key 'store.retension' is not a kraken setting (`kraken config --print` lists them)\n");
  }
}

}  // namespace
}  // namespace kraken
