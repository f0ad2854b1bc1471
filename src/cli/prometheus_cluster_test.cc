// `kraken analyze --prometheus` against a real Prometheus 2.x on loopback, loaded with a
// week of history built from real dcgm-exporter captures (prometheus_cluster_testing.h),
// and against a Prometheus scraping a live replay of one. The annotate command over the
// same history is in prometheus_annotate_test.cc, its controller mode in
// prometheus_controller_test.cc.
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <thread>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_cluster_testing.h"
#include "cli/prometheus_test_server.h"
#include "promql/prometheus_client.h"

namespace kraken {
namespace {

using prometheus_cluster_testing::kClusterA100;
using prometheus_cluster_testing::kClusterMiB;
using prometheus_cluster_testing::kClusterWeekS;
using prometheus_cluster_testing::PrometheusClusterTest;

TEST_F(PrometheusClusterTest, WeekOfRealDcgmHistoryGivesTheExportsValuesPerPod) {
  RunResult r = RunKraken(Args("--namespace ml --range 7d --step 30s --gpu-model a100-40gb-sxm --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  // 7 days at 30 s: 20,161 instants, paged into 10,000 + 10,000 + 161.
  EXPECT_EQ(int64_t(doc["source"]["step_s"]), 30);
  EXPECT_EQ(int64_t(doc["source"]["windows"]), 3);
  // Every sampled series answers in every window. The memory-total fields (here FB_FREE
  // of the whole A100 and of the T4: 2 series) are read once, at 60 x the step (30 min:
  // 337 instants), only for the GPUs' memory size.
  int64_t series = int64_t(doc["source"]["series"]);
  constexpr int64_t kMemoryTotalSeries = 2;
  EXPECT_EQ((series - kMemoryTotalSeries) % 3, 0);
  EXPECT_EQ(int64_t(doc["source"]["points"]), (series - kMemoryTotalSeries) / 3 * 20161 + kMemoryTotalSeries * 337);
  EXPECT_EQ(int64_t(doc["source"]["counters"]["dcgm_blank_values"]), 0);

  std::map<std::string, simdjson::dom::element> pods;
  for (simdjson::dom::element pod : doc["pods"].get_array()) pods[std::string(std::string_view(pod["pod"]))] = pod;
  ASSERT_EQ(pods.size(), 3u);
  // Trainer: DCGM_FI_PROF_GR_ENGINE_ACTIVE 0.995630 and DCGM_FI_DEV_FB_USED 4845 (MiB).
  simdjson::dom::element trainer = pods["trainer-0"];
  EXPECT_EQ(std::string_view(trainer["node"]), "ub20-a100-k8s");
  EXPECT_EQ(std::string_view(trainer["gpu_uuid"]), "GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
  EXPECT_EQ(std::string_view(trainer["gpu_model"]), "a100-40gb-sxm");
  EXPECT_DOUBLE_EQ(double(trainer["gpu_busy"]["p95"]), 0.99563);
  EXPECT_DOUBLE_EQ(double(trainer["gpu_busy"]["mean"]), 0.99563);
  EXPECT_DOUBLE_EQ(double(trainer["tensor_active"]["p95"]), 0.92926);
  EXPECT_DOUBLE_EQ(double(trainer["dram_active"]["max"]), 0.690789);
  EXPECT_DOUBLE_EQ(double(trainer["memory_bytes"]["max"]), 4845 * kClusterMiB);
  EXPECT_EQ(std::string_view(trainer["action"]), "keep");
  // Notebook: the 1g.5gb instance's own values (GR 0.995687, DRAM 0.800339).
  simdjson::dom::element notebook = pods["notebook-0"];
  EXPECT_EQ(std::string_view(notebook["mig_profile"]), "1g.5gb");
  EXPECT_DOUBLE_EQ(double(notebook["gpu_busy"]["p95"]), 0.995687);
  EXPECT_DOUBLE_EQ(double(notebook["dram_active"]["p95"]), 0.800339);
  EXPECT_EQ(std::string_view(notebook["action"]), "keep");
  EXPECT_EQ(std::string_view(notebook["detail"]), "already in MIG slice 1g.5gb");
  // T4 (driver 460): DCGM_FI_DEV_GPU_UTIL 0, FB_USED 0 -> idle, reclaim.
  simdjson::dom::element t4 = pods["infer-t4"];
  EXPECT_EQ(std::string_view(t4["gpu_model"]), "t4");
  EXPECT_DOUBLE_EQ(double(t4["gpu_busy"]["max"]), 0.0);
  EXPECT_DOUBLE_EQ(double(t4["memory_bytes"]["max"]), 0.0);
  EXPECT_DOUBLE_EQ(double(t4["samples_span_s"]), double(kClusterWeekS));  // the utilization series spans the week
  EXPECT_EQ(std::string_view(t4["action"]), "reclaim");
  EXPECT_EQ(int64_t(doc["gpus"]["now"]), 2);
  EXPECT_EQ(int64_t(doc["gpus"]["reclaimed"]), 1);
  EXPECT_EQ(int64_t(doc["gpus"]["after"]), 1);
  EXPECT_EQ(int64_t(doc["gpus"]["saved"]), 1);
  EXPECT_DOUBLE_EQ(double(doc["gpus"]["saved_gpu_hours"]), 168.0);
}

TEST_F(PrometheusClusterTest, AutoStepIsTheSampleIntervalAndGivesWhatStep5mGives) {
  RunResult automatic = RunKraken(Args("--namespace ml --range 7d --gpu-model a100-40gb-sxm --json"));
  RunResult asked = RunKraken(Args("--namespace ml --range 7d --step 5m --gpu-model a100-40gb-sxm --json"));
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  ASSERT_EQ(asked.exit_code, 0) << asked.err;
  simdjson::dom::parser auto_parser, asked_parser;
  simdjson::dom::element auto_doc = auto_parser.parse(automatic.out);
  simdjson::dom::element asked_doc = asked_parser.parse(asked.out);
  EXPECT_EQ(int64_t(auto_doc["source"]["step_s"]), 300);
  EXPECT_EQ(int64_t(auto_doc["source"]["sample_interval_s"]), 300);
  EXPECT_NE(std::string_view(auto_doc["source"]["step_reason"]).find("sample interval"), std::string_view::npos);
  EXPECT_EQ(std::string_view(asked_doc["source"]["step_reason"]), "as asked (--step)");
  EXPECT_EQ(int64_t(asked_doc["source"]["sample_interval_s"]), 0);
  EXPECT_EQ(int64_t(auto_doc["source"]["points"]), int64_t(asked_doc["source"]["points"]));
  // Same step, same pods: everything after the source block is the same text.
  size_t auto_pods = automatic.out.find("\"pods\"");
  ASSERT_NE(auto_pods, std::string::npos);
  EXPECT_EQ(automatic.out.substr(auto_pods), asked.out.substr(asked.out.find("\"pods\"")));
  EXPECT_EQ(std::string_view(auto_doc["pods"].at(0)["action"]).empty(), false);
}

// --max-slowdown reaches the pooling analysis. No pod of this history is a MIG candidate
// (the trainer is busy, the notebook already on a slice, the T4 idle), so the pods' advice
// is the same at 10 % and at 1000 %; the budget's effect on real demand is
// PodPoolingTest.MigSlicesAreHeldToTheSlowdownBudgetOnARealTrace.
TEST_F(PrometheusClusterTest, MaxSlowdownIsTheDocumentsBudget) {
  RunResult standard = RunKraken(Args("--namespace ml --range 7d --json"));
  RunResult any = RunKraken(Args("--namespace ml --range 7d --max-slowdown 1000 --json"));
  ASSERT_EQ(standard.exit_code, 0) << standard.err;
  ASSERT_EQ(any.exit_code, 0) << any.err;
  simdjson::dom::parser standard_parser, any_parser;
  EXPECT_DOUBLE_EQ(double(standard_parser.parse(standard.out)["max_slowdown"]), 0.10);
  EXPECT_DOUBLE_EQ(double(any_parser.parse(any.out)["max_slowdown"]), 10.0);
  size_t pods = standard.out.find("\"pods\"");
  ASSERT_NE(pods, std::string::npos);
  EXPECT_EQ(standard.out.substr(pods), any.out.substr(any.out.find("\"pods\"")));
  ExpectOneLineError(RunKraken(Args("--namespace ml --max-slowdown 1001")),
                     "max_slowdown (--max-slowdown) must be between 0 and 1000");
}

TEST_F(PrometheusClusterTest, AutoStepTextOutputAndOnePod) {
  RunResult r = RunKraken(Args("--namespace ml --pod infer-t4 --explain"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The history is backfilled every 300 s: the auto step is that, not the range rule's 60 s.
  EXPECT_NE(r.out.find("step 300 s (auto: the data's sample interval (300 s), coarser than the range rule's 60 s), "
                       "1 query window(s)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ml/infer-t4"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("trainer-0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reclaim"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPUs held now 1, reclaimable (idle) 1, after pooling 0: 1 GPU(s) saved (168.0 GPU-hours"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("assumes:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("busy p95"), std::string::npos) << r.out;
}

TEST_F(PrometheusClusterTest, RealPodLabelsOfTheA10gLine) {
  RunResult r = RunKraken(Args("--namespace ray-llm --range 1d --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.out);
  simdjson::dom::array pods = doc["pods"].get_array();
  ASSERT_EQ(pods.size(), 1u);
  simdjson::dom::element pod = pods.at(0);
  EXPECT_EQ(std::string_view(pod["pod"]), "ray-1111111");
  // modelName="NVIDIA A10G": not the A10 of the catalog (AWS' variant), so no model is guessed.
  EXPECT_EQ(std::string_view(pod["gpu_model"]), "");
  EXPECT_DOUBLE_EQ(double(pod["dram_active"]["p95"]), 0.000003);
  // Only DRAM activity was exported: no busy figure, so no claim either way.
  EXPECT_EQ(std::string_view(pod["action"]), "unknown");
  EXPECT_EQ(int64_t(doc["gpus"]["saved"]), 0);
}

TEST_F(PrometheusClusterTest, TheServerRefusesOneQueryOverElevenThousandPoints) {
  // Why kraken pages: the same week at 30 s in one request is refused by the real server.
  auto client = promql::PrometheusClient::Create(server_->url());
  ASSERT_TRUE(client.ok());
  auto answer = (*client)->QueryRange("DCGM_FI_DEV_GPU_UTIL", end_s_ - kClusterWeekS, end_s_, 30);
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.status().message().find("exceeded maximum resolution of 11,000 points per timeseries"),
            std::string::npos)
      << answer.status().message();
  auto fine = (*client)->QueryRange("DCGM_FI_DEV_GPU_UTIL", end_s_ - 3600, end_s_, 300);
  ASSERT_TRUE(fine.ok()) << fine.status().message();
  ASSERT_EQ(fine->size(), 1u);  // only the T4 (460) block exports GPU_UTIL with labels
  EXPECT_EQ((*fine)[0].values.size(), 13u);
  EXPECT_EQ((*fine)[0].values[0], "0");
}

TEST_F(PrometheusClusterTest, UnreachableServerAndBadFlagsAreOneLineErrors) {
  for (const std::string& args : {std::string("analyze --prometheus http://127.0.0.1:1 --namespace ml"),
                                  std::string("analyze --prometheus ") + server_->url() + " --namespace 'ml\"}'",
                                  std::string("analyze --prometheus ") + server_->url() + " --namespace ml --range 7x",
                                  std::string("analyze --prometheus ftp://prom:9090 --namespace ml"),
                                  std::string("analyze --prometheus ") + server_->url()}) {
    RunResult r = RunKraken(args);
    // Prometheus down is an outage (exit 1), not bad input (exit 2).
    const bool outage = args.find("127.0.0.1:1 ") != std::string::npos;
    EXPECT_EQ(r.exit_code, outage ? 1 : 2) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("kraken: error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// Live: Prometheus scrapes a loopback replay of the A100 capture as /metrics every second.
// The scrape target carries namespace/pod labels of the exporter's own pod, so the real
// Prometheus renames the workload's labels to exported_namespace/exported_pod itself.
TEST(PrometheusLiveScrapeTest, ScrapedReplayOfTheA100CaptureReadsBackPerPod) {
  std::string capture = testing::ReadFileOrDie(testing::DataPath(kClusterA100));
  std::string replay;
  for (std::string_view line : Split(capture, '\n')) {
    if (line.find("GPU_I_ID") != std::string_view::npos || line.empty()) continue;  // whole GPU only
    size_t brace = line.find('{');
    if (brace == std::string_view::npos) continue;
    replay += std::string(line.substr(0, brace + 1)) + "namespace=\"ml\",pod=\"trainer-0\"," +
              std::string(line.substr(brace + 1)) + "\n";
  }
  httplib::Server exporter;
  exporter.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(replay, "text/plain; version=0.0.4");
  });
  int port = exporter.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { exporter.listen_after_bind(); });
  std::string scrape =
      "scrape_configs:\n  - job_name: dcgm\n    scrape_interval: 1s\n    scrape_timeout: 1s\n    static_configs:\n"
      "      - targets: ['127.0.0.1:" +
      std::to_string(port) +
      "']\n"
      "        labels: {namespace: gpu-operator, pod: nvidia-dcgm-exporter-5x2kq}\n";
  testing::PrometheusServer prometheus("", testing::MakeTempDir("prometheus_live"), scrape);
  ASSERT_TRUE(prometheus.ok()) << prometheus.error();
  std::string out;
  bool found = false;
  for (int attempt = 0; attempt < 40 && !found; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    RunResult r = RunKraken("analyze --prometheus " + prometheus.url() + " --namespace ml --range 1m --step 1s --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    out = r.out;
    found = out.find("\"trainer-0\"") != std::string::npos && out.find("\"gpu_busy\": {") != std::string::npos;
  }
  exporter.stop();
  thread.join();
  ASSERT_TRUE(found) << out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(out);
  simdjson::dom::element pod = doc["pods"].get_array().at(0);
  EXPECT_EQ(std::string_view(pod["pod"]), "trainer-0");
  EXPECT_EQ(std::string_view(pod["node"]), "ub20-a100-k8s");
  EXPECT_DOUBLE_EQ(double(pod["gpu_busy"]["p95"]), 0.99563);
  EXPECT_DOUBLE_EQ(double(pod["memory_bytes"]["max"]), 4845 * kClusterMiB);
  EXPECT_EQ(std::string_view(doc["source"]["query"]).find("exported_namespace=\"ml\"") != std::string_view::npos, true);
}

}  // namespace
}  // namespace kraken
