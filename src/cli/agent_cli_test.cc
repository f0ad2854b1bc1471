// End-to-end tests of `kraken agent` and `kraken config`: the real binary on the replayed
// 8 x H100 node (tests/fixtures/nvml/h100x8.nvml), scraped over loopback, stopped with
// SIGTERM; a real Prometheus server scraping it; config precedence and errors.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"

namespace kraken {
namespace {

using namespace std::chrono_literals;

constexpr double kMiB = 1024.0 * 1024.0;

std::string Fixture(const std::string& name) { return testing::SourceDir() + "/tests/fixtures/nvml/" + name; }

// What one frame of the capture says about gpu0 (all 8 GPUs are copies of it).
struct FrameValues {
  double util_pct = -1;
  double power_w = -1;
  double sm_clock_mhz = -1;
  double gpu_temp_c = -1;
  double fb_used_bytes = -1;
  double pcie_tx_kbps = -1;
};

std::vector<FrameValues> ReadCaptureFrames(const std::string& path) {
  std::vector<FrameValues> frames;
  std::istringstream in(testing::ReadFileOrDie(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("[frame ", 0) == 0) {
      frames.emplace_back();
      continue;
    }
    if (frames.empty() || line.rfind("gpu0.", 0) != 0) continue;
    size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    std::string key = line.substr(5, eq - 5);
    std::istringstream value(line.substr(eq + 3));
    FrameValues& f = frames.back();
    if (key == "utilization") value >> f.util_pct;
    if (key == "power_mw") {
      value >> f.power_w;
      f.power_w /= 1000;
    }
    if (key == "sm_clock_mhz") value >> f.sm_clock_mhz;
    if (key == "gpu_temp_c") value >> f.gpu_temp_c;
    if (key == "pcie_tx_kbps") value >> f.pcie_tx_kbps;
    if (key == "memory") {
      double total = 0, reserved = 0, free = 0;
      value >> total >> reserved >> free >> f.fb_used_bytes;
    }
  }
  return frames;
}

// "name{labels} value" lines of one family: labels text -> value.
std::map<std::string, double> Family(const std::string& text, const std::string& name) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + "{", 0) != 0) continue;
    size_t close = line.rfind("} ");
    if (close == std::string::npos) continue;
    out[line.substr(name.size(), close + 1 - name.size())] = std::strtod(line.c_str() + close + 2, nullptr);
  }
  return out;
}

struct RunningAgent {
  std::unique_ptr<testing::ChildProcess> process;
  int port = 0;
  std::string db;
};

RunningAgent StartAgent(const std::string& capture, std::vector<std::string> extra = {}) {
  ::setenv("KRAKEN_NVML_REPLAY", Fixture(capture).c_str(), 1);
  std::string dir = testing::MakeTempDir("agent_cli");
  RunningAgent agent;
  agent.db = dir + "/kraken.db";
  std::vector<std::string> argv = {KRAKEN_BINARY_PATH, "agent", "--listen", "127.0.0.1:0", "--nvml-library",
                                   KRAKEN_NVML_REPLAY_LIBRARY};
  if (std::find(extra.begin(), extra.end(), "--interval") == extra.end()) {
    argv.push_back("--interval");
    argv.push_back("100ms");
  }
  if (std::find(extra.begin(), extra.end(), "--no-store") == extra.end()) {
    argv.push_back("--db");
    argv.push_back(agent.db);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  agent.process = std::make_unique<testing::ChildProcess>(argv, dir + "/agent.log");
  std::string log = agent.process->WaitForLog("/metrics: ", 30s);
  size_t at = log.find("serving http://127.0.0.1:");
  if (at != std::string::npos) agent.port = std::atoi(log.c_str() + at + std::strlen("serving http://127.0.0.1:"));
  return agent;
}

TEST(AgentCliTest, ServesTheReplayedNodeAndCommitsItsProfileOnSigterm) {
  RunningAgent agent = StartAgent("h100x8.nvml");
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
  std::vector<FrameValues> frames = ReadCaptureFrames(Fixture("h100x8.nvml"));
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
  RunningAgent first = StartAgent("h100.nvml", {"--no-store"});
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

std::string WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

// The kraken_* families of the window analysis, from the real binary on the replayed
// 8 x H100 node: a 1 s ring at 100 ms holds 10 passes, i.e. one whole round of the
// capture's frames whatever frame it starts at (5 idle at 0 %, 5 under gpu-burn at 100 %,
// 0 and 20780679168 B used), analysed every second.
TEST(AgentCliTest, ExportsTheWindowAnalysisPerGpuWithTheDcgmLabels) {
  std::string dir = testing::MakeTempDir("agent_window");
  std::string config = WriteText(dir + "/kraken.yaml",
                                 "agent:\n  ring: 1s\n  analysis_window: 1s\n  analysis_interval: 1s\n");
  RunningAgent agent = StartAgent("h100x8.nvml", {"--no-store", "--config", config});
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

// A real Prometheus 2.x server scrapes the agent every second; its query API must answer
// DCGM_FI_DEV_GPU_UTIL for the 8 GPUs with dcgm-exporter's labels and the capture's values.
TEST(AgentPrometheusTest, ARealPrometheusScrapesTheAgent) {
  const char* prometheus_binary = "/usr/bin/prometheus";
  // CI installs it (scripts/install-deps.sh); a missing binary fails, never skips.
  ASSERT_EQ(::access(prometheus_binary, X_OK), 0) << prometheus_binary << " is missing: run scripts/install-deps.sh";
  std::string dir = testing::MakeTempDir("agent_prometheus");
  // A ring of one round of the capture (10 passes at 100 ms), analysed every second.
  std::string agent_config = WriteText(dir + "/kraken.yaml",
                                       "agent:\n  ring: 1s\n  analysis_window: 1s\n  analysis_interval: 1s\n");
  RunningAgent agent = StartAgent("h100x8.nvml", {"--no-store", "--config", agent_config});
  ASSERT_GT(agent.port, 0) << agent.process->Log();

  std::string config = WriteText(dir + "/prometheus.yml", "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                                                          "scrape_configs:\n  - job_name: kraken\n    static_configs:\n"
                                                          "      - targets: ['127.0.0.1:" +
                                                              std::to_string(agent.port) + "']\n");
  int port = testing::FreeLoopbackPort();
  ASSERT_GT(port, 0);
  testing::ChildProcess prometheus({prometheus_binary, "--config.file=" + config, "--storage.tsdb.path=" + dir + "/tsdb",
                                    "--web.listen-address=127.0.0.1:" + std::to_string(port)},
                                   dir + "/prometheus.log");
  httplib::Client client("127.0.0.1", port);
  std::string body;
  size_t series = 0;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline && series < 8) {
    std::this_thread::sleep_for(500ms);
    auto response = client.Get("/api/v1/query?query=DCGM_FI_DEV_GPU_UTIL");
    if (!response || response->status != 200) continue;
    body = response->body;
    simdjson::dom::array result;
    if (parser.parse(body).get(doc) == simdjson::SUCCESS && doc["data"]["result"].get(result) == simdjson::SUCCESS)
      series = result.size();
  }
  ASSERT_EQ(series, 8u) << body << "\n" << prometheus.Log();

  std::set<double> frame_utils;
  for (const auto& f : ReadCaptureFrames(Fixture("h100x8.nvml"))) frame_utils.insert(f.util_pct);
  std::set<std::string> gpus;
  for (simdjson::dom::element r : doc["data"]["result"].get_array()) {
    std::string_view gpu, uuid, model, job, bus, device, host, value;
    ASSERT_EQ(r["metric"]["gpu"].get(gpu), simdjson::SUCCESS) << body;
    ASSERT_EQ(r["metric"]["UUID"].get(uuid), simdjson::SUCCESS) << body;
    ASSERT_EQ(r["metric"]["modelName"].get(model), simdjson::SUCCESS) << body;
    ASSERT_EQ(r["metric"]["pci_bus_id"].get(bus), simdjson::SUCCESS) << body;
    ASSERT_EQ(r["metric"]["device"].get(device), simdjson::SUCCESS) << body;
    ASSERT_EQ(r["metric"]["Hostname"].get(host), simdjson::SUCCESS) << body;
    ASSERT_EQ(r["metric"]["job"].get(job), simdjson::SUCCESS) << body;
    ASSERT_EQ(r["value"].at(1).get(value), simdjson::SUCCESS) << body;
    gpus.insert(std::string(gpu));
    EXPECT_EQ(model, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(job, "kraken");
    EXPECT_EQ(device, "nvidia" + std::string(gpu));  // the fixture's minor number k for copy k
    EXPECT_EQ(frame_utils.count(std::strtod(std::string(value).c_str(), nullptr)), 1u) << value;
  }
  EXPECT_EQ(gpus, (std::set<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"}));

  // One kraken_* family through Prometheus: the window's busy p95 per GPU, under the same
  // dcgm-exporter labels as the GPU's DCGM series (1: the round has 5 passes at 100 %).
  std::map<std::string, std::string> p95_by_uuid;
  deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(500ms);
    auto response = client.Get("/api/v1/query?query=kraken_gpu_util_p95");
    if (!response || response->status != 200) continue;
    body = response->body;
    simdjson::dom::array result;
    if (parser.parse(body).get(doc) != simdjson::SUCCESS || doc["data"]["result"].get(result) != simdjson::SUCCESS)
      continue;
    p95_by_uuid.clear();
    for (simdjson::dom::element r : result) {
      std::string_view uuid, model, value;
      if (r["metric"]["UUID"].get(uuid) != simdjson::SUCCESS || r["metric"]["modelName"].get(model) != simdjson::SUCCESS ||
          r["value"].at(1).get(value) != simdjson::SUCCESS || model != "NVIDIA H100 80GB HBM3")
        continue;
      p95_by_uuid[std::string(uuid)] = std::string(value);
    }
    if (p95_by_uuid.size() == 8 &&
        std::all_of(p95_by_uuid.begin(), p95_by_uuid.end(), [](const auto& p) { return p.second == "1"; }))
      break;
  }
  ASSERT_EQ(p95_by_uuid.size(), 8u) << body;
  for (const auto& [uuid, value] : p95_by_uuid) EXPECT_EQ(value, "1") << uuid << "\n" << body;
  EXPECT_EQ(prometheus.Stop(SIGTERM, 30s), 0) << prometheus.Log();
  EXPECT_EQ(agent.process->Stop(SIGINT, 15s), 0) << agent.process->Log();
}

// The agent's kraken_* figures against `kraken analyze --prometheus` on the agent's own
// DCGM series in a real Prometheus: the replayed L40S (dmon sm 0 0 0 0 0 10 9 9 9 10, 0 and
// 1294991360 B used) sampled once a second, the capture's own frame rate, so Prometheus
// (scraping every second) holds about the passes the agent analyses. The scrape target
// gets namespace="ml", pod="trainer-0", which the agent's series lack, so the cluster
// analysis reads them as that pod's GPU.
TEST(AgentPrometheusTest, WindowFiguresAgreeWithAnalyzePrometheusOnTheSameSeries) {
  const char* prometheus_binary = "/usr/bin/prometheus";
  ASSERT_EQ(::access(prometheus_binary, X_OK), 0) << prometheus_binary << " is missing: run scripts/install-deps.sh";
  std::string dir = testing::MakeTempDir("agent_analyze");
  std::string agent_config = WriteText(dir + "/kraken.yaml",
                                       "agent:\n  ring: 20s\n  analysis_window: 20s\n  analysis_interval: 1s\n");
  RunningAgent agent = StartAgent("l40s.nvml", {"--no-store", "--interval", "1s", "--config", agent_config});
  ASSERT_GT(agent.port, 0) << agent.process->Log();
  std::string config = WriteText(dir + "/prometheus.yml", "global:\n  scrape_interval: 1s\n"
                                                          "scrape_configs:\n  - job_name: kraken\n    static_configs:\n"
                                                          "      - targets: ['127.0.0.1:" +
                                                              std::to_string(agent.port) +
                                                              "']\n        labels: {namespace: ml, pod: trainer-0}\n");
  int port = testing::FreeLoopbackPort();
  ASSERT_GT(port, 0);
  testing::ChildProcess prometheus({prometheus_binary, "--config.file=" + config, "--storage.tsdb.path=" + dir + "/tsdb",
                                    "--web.listen-address=127.0.0.1:" + std::to_string(port)},
                                   dir + "/prometheus.log");
  httplib::Client client("127.0.0.1", agent.port);
  std::string out, text;
  simdjson::dom::parser parser;
  simdjson::dom::element pod;
  bool ready = false;
  auto deadline = std::chrono::steady_clock::now() + 90s;
  while (!ready && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1s);
    // Both sides over 20 s: the agent's window full, Prometheus' range covered.
    RunResult r = RunKraken("analyze --prometheus http://127.0.0.1:" + std::to_string(port) +
                            " --namespace ml --range 20s --step 1s --json");
    auto scrape = client.Get("/metrics");
    if (r.exit_code != 0 || !scrape) continue;
    out = r.out;
    text = scrape->body;
    simdjson::dom::element doc;
    simdjson::dom::array pods;
    double span = 0;
    if (parser.parse(out).get(doc) != simdjson::SUCCESS || doc["pods"].get(pods) != simdjson::SUCCESS ||
        pods.size() != 1 || pods.at(0)["samples_span_s"].get(span) != simdjson::SUCCESS)
      continue;
    std::map<std::string, double> passes = Family(text, "kraken_analysis_passes");
    ready = span >= 19 && passes.size() == 1 && passes.begin()->second == 20;
    if (ready) pod = pods.at(0);
  }
  ASSERT_TRUE(ready) << out << "\n" << text << "\n" << prometheus.Log();
  std::map<std::string, double> p95 = Family(text, "kraken_gpu_util_p95");
  std::map<std::string, double> peak = Family(text, "kraken_memory_peak_bytes");
  std::map<std::string, double> idle = Family(text, "kraken_gpu_idle_ratio");
  ASSERT_EQ(p95.size(), 1u) << text;
  ASSERT_EQ(peak.size(), 1u) << text;
  EXPECT_EQ(std::string_view(pod["pod"]), "trainer-0");
  EXPECT_EQ(std::string_view(pod["gpu_model"]), "l40s");
  EXPECT_EQ(double(pod["gpu_busy"]["p95"]), 0.1);
  EXPECT_EQ(p95.begin()->second, double(pod["gpu_busy"]["p95"]));
  EXPECT_EQ(double(pod["memory_bytes"]["max"]), 1294991360.0);
  EXPECT_EQ(peak.begin()->second, double(pod["memory_bytes"]["max"]));
  EXPECT_EQ(idle.begin()->second, 0.5);  // 20 passes: two rounds of the capture's frames
  EXPECT_EQ(std::string_view(pod["action"]), "keep");
  EXPECT_EQ(std::string_view(pod["detail"]), "no partner fits beside it");
  std::string info = p95.begin()->first;
  info.pop_back();
  EXPECT_NE(text.find("kraken_workload_info" + info + ",workload_type=\"unknown\",pooling_action=\"keep\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(prometheus.Stop(SIGTERM, 30s), 0) << prometheus.Log();
  EXPECT_EQ(agent.process->Stop(SIGINT, 15s), 0) << agent.process->Log();
}

}  // namespace
}  // namespace kraken
