// `kraken agent` scraped by a real Prometheus 2.x server on loopback: dcgm-exporter's
// series for the replayed 8 x H100 node, and the agent's own window figures against
// `kraken analyze --prometheus` on the same series.
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
#include "cli/agent_cli_testing.h"

namespace kraken {
namespace {

using namespace std::chrono_literals;
using namespace agent_cli_testing;  // NOLINT: the shared helpers, as if they were this file's

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
  RunningAgent agent = StartReplayedAgent("h100x8.nvml", {"--no-store", "--config", agent_config});
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
  for (const auto& f : ReadCaptureFrames(AgentNvmlFixture("h100x8.nvml"))) frame_utils.insert(f.util_pct);
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
  RunningAgent agent = StartReplayedAgent("l40s.nvml", {"--no-store", "--interval", "1s", "--config", agent_config});
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
