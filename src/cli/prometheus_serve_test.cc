// `kraken serve --prometheus URL`: GET /api/v1/cluster read from a real Prometheus on
// loopback (loaded with a day of history built from the real dcgm-exporter captures in
// ../shared/data/dcgm, as prometheus_cluster_test.cc does) by the real server binary. Its
// per-pod and per-namespace figures, GPU rows and heatmap must say what `kraken analyze
// --prometheus --json` says for the same range.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <iostream>
#include <map>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_test_server.h"
#include "cli/serve_over_prometheus_testing.h"

namespace kraken {
namespace {

constexpr char kServeA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kServeT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";
constexpr int64_t kServeDayS = 86400;

class PrometheusServeTest : public testing::ServeOverPrometheusTest<PrometheusServeTest> {
 protected:
  static void SetUpTestSuite() {
    int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    end_s_ = now / 300 * 300 - 3600;
    testing::HistoryShape shape{end_s_, 2 * kServeDayS, 300};
    std::vector<testing::CaptureAttribution> captures = {
        {kServeA100, "ub20-a100-k8s", false, "ml", "trainer-0", true},
        {kServeA100, "ub20-a100-k8s", true, "ml", "notebook-0", true},
        {kServeT4, "424773df46e0", false, "ml", "infer-t4", false},
        {kServeT4, "", false, "", "", false},
    };
    int64_t series = 0;
    StartServing(testing::BuildOpenMetricsHistory(captures, shape, &series), "prometheus_serve");
  }

  static httplib::Result Get(const std::string& path) {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(60, 0);
    return client.Get(path);
  }

  static inline int64_t end_s_ = 0;
};

TEST_F(PrometheusServeTest, ClusterRouteSaysWhatAnalyzeSaysForTheSameRange) {
  RunResult analyze = RunKraken("analyze --prometheus " + prometheus_->url() + " --end " + std::to_string(end_s_) +
                                " --namespace ml --range 1d --json");
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  simdjson::dom::parser analyze_parser;
  simdjson::dom::element expected = analyze_parser.parse(analyze.out);

  auto started = std::chrono::steady_clock::now();
  auto answer = Get("/api/v1/cluster?range=1d&bins=24&end=" + std::to_string(end_s_));
  double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  ASSERT_TRUE(answer) << serve_->Log();
  ASSERT_EQ(answer->status, 200) << answer->body;
  std::cout << "GET /api/v1/cluster?range=1d&bins=24 from Prometheus: " << elapsed_ms << " ms, "
            << answer->body.size() << " bytes\n";
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(answer->body);
  EXPECT_EQ(std::string_view(doc["source"]), "prometheus");
  EXPECT_EQ(int64_t(doc["prometheus"]["end_s"]), end_s_);
  // Prometheus aggregates per heatmap bin: the step is the bin, a day over 24 bins.
  EXPECT_EQ(int64_t(doc["prometheus"]["step_s"]), kServeDayS / 24);
  EXPECT_EQ(int64_t(doc["prometheus"]["start_s"]), end_s_ - kServeDayS);

  // Per pod: the mean busy figure, in percent, is analyze's gpu_busy mean.
  std::map<std::string, simdjson::dom::element> pods;
  for (simdjson::dom::element pod : doc["pods"].get_array())
    if (std::string_view(pod["namespace"]) == "ml") pods[std::string(std::string_view(pod["pod"]))] = pod;
  simdjson::dom::array expected_pods = expected["pods"].get_array();
  ASSERT_EQ(pods.size(), expected_pods.size()) << answer->body;
  double ns_sum = 0, ns_samples = 0;
  for (simdjson::dom::element want : expected_pods) {
    std::string name{std::string_view(want["pod"])};
    ASSERT_TRUE(pods.count(name)) << name << "\n" << answer->body;
    double mean_pct = double(want["gpu_busy"]["mean"]) * 100.0;
    EXPECT_NEAR(double(pods[name]["mean_gpu_util_pct"]), mean_pct, 1e-9) << name;
    EXPECT_EQ(int64_t(pods[name]["gpus"]), 1) << name;
    ns_sum += mean_pct * double(int64_t(pods[name]["samples"]));
    ns_samples += double(int64_t(pods[name]["samples"]));
  }
  EXPECT_NEAR(double(pods["trainer-0"]["mean_gpu_util_pct"]), 99.563, 1e-9);
  EXPECT_NEAR(double(pods["infer-t4"]["mean_gpu_util_pct"]), 0.0, 1e-12);
  // Samples are Prometheus's raw ones, counted once each: every 300 s in (end - 1d, end].
  EXPECT_EQ(int64_t(pods["trainer-0"]["samples"]), kServeDayS / 300);

  // Per namespace: ml is its three pods' samples together. The A10G line (namespace ray-llm)
  // sends only DCGM_FI_PROF_DRAM_ACTIVE, no busy field: it is in no use figure.
  std::map<std::string, simdjson::dom::element> namespaces;
  for (simdjson::dom::element ns : doc["namespaces"].get_array()) namespaces[std::string(std::string_view(ns["namespace"]))] = ns;
  ASSERT_EQ(namespaces.size(), 1u) << answer->body;
  ASSERT_TRUE(namespaces.count("ml")) << answer->body;
  EXPECT_EQ(int64_t(namespaces["ml"]["gpus"]), 3);
  EXPECT_NEAR(double(namespaces["ml"]["mean_gpu_util_pct"]), ns_sum / ns_samples, 1e-6);  // the JSON keeps 10 digits

  // Rows: the trainer's whole A100 and the notebook's MIG instance, with analyze's GPU
  // identity, memory and busy figure; the heatmap row of each is that figure in every bin.
  simdjson::dom::array gpus = doc["gpus"].get_array();
  simdjson::dom::array heat_rows = doc["heatmap"]["rows"].get_array();
  ASSERT_EQ(heat_rows.size(), gpus.size());
  EXPECT_EQ(int64_t(doc["heatmap"]["bins"]), 24);
  std::map<std::string, simdjson::dom::element> by_pod;
  for (simdjson::dom::element want : expected_pods) by_pod[std::string(std::string_view(want["pod"]))] = want;
  int matched = 0;
  for (size_t i = 0; i < gpus.size(); ++i) {
    simdjson::dom::element row = gpus.at(i);
    bool trainer = std::string_view(row["gpu_uuid"]) == std::string_view(by_pod["trainer-0"]["gpu_uuid"]) &&
                   int64_t(row["gpu_instance_id"]) == -1;
    if (!trainer) continue;
    ++matched;
    EXPECT_EQ(std::string_view(row["hostname"]), std::string_view(by_pod["trainer-0"]["node"]));
    EXPECT_DOUBLE_EQ(double(row["fb_used_bytes"]), double(by_pod["trainer-0"]["memory_bytes"]["max"]));
    EXPECT_NEAR(double(row["mean_gpu_util_pct"]), double(by_pod["trainer-0"]["gpu_busy"]["mean"]) * 100.0, 1e-9);
    simdjson::dom::array values = heat_rows.at(i)["values"].get_array();
    ASSERT_EQ(values.size(), 24u);
    for (simdjson::dom::element v : values) EXPECT_NEAR(double(v), 99.563, 1e-9);
  }
  EXPECT_EQ(matched, 1) << answer->body;

  // Pooling candidates: the idle T4 (analyze: reclaim), not the busy A100.
  bool t4_candidate = false, a100_candidate = false;
  for (simdjson::dom::element c : doc["pooling_candidates"].get_array()) {
    t4_candidate |= std::string_view(c["hostname"]) == "424773df46e0";
    a100_candidate |= std::string_view(c["hostname"]) == "ub20-a100-k8s";
  }
  EXPECT_EQ(std::string_view(by_pod["infer-t4"]["action"]), "reclaim");
  EXPECT_TRUE(t4_candidate) << answer->body;
  EXPECT_FALSE(a100_candidate) << answer->body;
}

TEST_F(PrometheusServeTest, BadRangeIsOneLineError) {
  auto answer = Get("/api/v1/cluster?range=yesterday");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 400) << answer->body;
  EXPECT_NE(answer->body.find("range"), std::string::npos) << answer->body;
}

TEST_F(PrometheusServeTest, UnreachablePrometheusIsUnavailableNamingIt) {
  std::string dir = testing::MakeTempDir("prometheus_serve_down");
  int port = testing::FreeLoopbackPort();
  std::string nobody = "http://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  testing::ChildProcess serve({KRAKEN_BINARY_PATH, "serve", "--host", "127.0.0.1", "--port", std::to_string(port),
                               "--db", dir + "/api.db", "--prometheus", nobody},
                              dir + "/serve.log");
  ASSERT_FALSE(serve.WaitForLog("listening on", std::chrono::seconds(20)).empty()) << serve.Log();
  httplib::Client client("127.0.0.1", port);
  auto answer = client.Get("/api/v1/cluster");
  ASSERT_TRUE(answer) << serve.Log();
  // An outage, not a kraken bug: 503 with Retry-After (prometheus_outage_test.cc has the rest).
  EXPECT_EQ(answer->status, 503) << answer->body;
  EXPECT_EQ(answer->get_header_value("Retry-After"), "5");
  EXPECT_NE(answer->body.find("\"code\":\"unavailable\""), std::string::npos) << answer->body;
  EXPECT_NE(answer->body.find(nobody), std::string::npos) << answer->body;
  EXPECT_TRUE(serve.running()) << serve.Log();
}

TEST_F(PrometheusServeTest, ServeRefusesAnUnparsablePrometheusUrl) {
  RunResult r = RunKraken("serve --port 0 --db /nonexistent/x.db --prometheus ftp://nowhere");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--prometheus"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kraken
