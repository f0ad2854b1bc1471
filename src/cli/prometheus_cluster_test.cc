// `kraken analyze --prometheus` against a real Prometheus 2.x on loopback, loaded with a
// week of history built from real dcgm-exporter captures (../shared/data/dcgm): the
// values are the files' own, unchanged at every 5-minute sample; the pod attribution is
// the test's (the captures were taken without pods, except the A10G line of the DataDog
// fixture, whose real labels namespace="ray-llm",pod="ray-1111111" are kept).
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>

#include "base/testing/test_data.h"
#include "base/text.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_test_server.h"
#include "k8s/client/fake_api_server.h"
#include "k8s/controller/annotation_writer.h"
#include "promql/prometheus_client.h"

namespace kraken {
namespace {

constexpr char kA100[] = "dcgm/a100-mig_dcgm-exporter-2.4_nvidia-cloud-native-docs.prom";
constexpr char kT4[] = "dcgm/t4-a10g_dcgm-exporter_datadog-integrations-core_fixture.txt";
constexpr int64_t kWeekS = 7 * 86400;
constexpr double kMiB = 1024.0 * 1024.0;

class PrometheusClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    end_s_ = now / 300 * 300 - 3600;  // an hour back: all of it in persisted blocks
    testing::HistoryShape shape{end_s_, kWeekS, 300};
    std::vector<testing::CaptureAttribution> captures = {
        // A100 node: the whole GPU to a trainer, MIG instance 13 (1g.5gb) to a notebook;
        // Prometheus scraped the exporter without honorLabels (exported_* spelling).
        {kA100, "ub20-a100-k8s", false, "ml", "trainer-0", true},
        {kA100, "ub20-a100-k8s", true, "ml", "notebook-0", true},
        // T4 with driver 460: an inference pod, labels kept as the exporter wrote them.
        {kT4, "424773df46e0", false, "ml", "infer-t4", false},
        // The A10G line's own labels (namespace ray-llm).
        {kT4, "", false, "", "", false},
    };
    std::string history = testing::BuildOpenMetricsHistory(captures, shape, &series_written_);
    server_ = new testing::PrometheusServer(history, testing::MakeTempDir("prometheus_server"));
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static std::string Args(const std::string& extra) {
    return "analyze --prometheus " + server_->url() + " --end " + std::to_string(end_s_) + " " + extra;
  }

  static inline testing::PrometheusServer* server_ = nullptr;
  static inline int64_t end_s_ = 0;
  static inline int64_t series_written_ = 0;
};

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
  EXPECT_DOUBLE_EQ(double(trainer["memory_bytes"]["max"]), 4845 * kMiB);
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
  EXPECT_DOUBLE_EQ(double(t4["samples_span_s"]), double(kWeekS));  // the utilization series spans the week
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
  auto answer = (*client)->QueryRange("DCGM_FI_DEV_GPU_UTIL", end_s_ - kWeekS, end_s_, 30);
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

TEST_F(PrometheusClusterTest, AnnotateWritesTheResultsThroughTheApiServer) {
  // A loopback API server: every pod exists with no annotation, one node exists (the A100
  // capture's Hostname); the other Hostnames answer 404. Requests are recorded.
  std::mutex mutex;
  std::vector<std::string> requests;
  httplib::Server api;
  api.Get(R"(/api/v1/namespaces/ml/pods/([a-z0-9-]+))", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    requests.push_back("GET " + req.path + " " + req.get_header_value("Authorization"));
    res.set_content(R"({"metadata":{"annotations":{}}})", "application/json");
  });
  api.Patch(R"(/api/v1/namespaces/ml/pods/([a-z0-9-]+))", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    requests.push_back("PATCH " + req.path + " " + req.get_header_value("Content-Type") + " " + req.body);
    res.set_content("{}", "application/json");
  });
  api.Get(R"(/api/v1/nodes/([a-z0-9-]+))", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    requests.push_back("GET " + req.path + " " + req.get_header_value("Authorization"));
    if (req.path != "/api/v1/nodes/ub20-a100-k8s") {
      res.status = 404;
      return;
    }
    res.set_content(R"({"metadata":{"labels":{"kubernetes.io/hostname":"ub20-a100-k8s"}}})", "application/json");
  });
  api.Patch(R"(/api/v1/nodes/([a-z0-9-]+))", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    requests.push_back("PATCH " + req.path + " " + req.get_header_value("Content-Type") + " " + req.body);
    res.set_content("{}", "application/json");
  });
  int port = api.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { api.listen_after_bind(); });
  std::string token = testing::MakeTempDir("token") + "/token";
  std::ofstream(token) << "sa-token\n";
  RunResult r = RunKraken("annotate --prometheus " + server_->url() + " --namespace ml --gpu-model a100-40gb-sxm " +
                          "--kube-api http://127.0.0.1:" + std::to_string(port) + " --token-file " + token);
  api.stop();
  thread.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("annotated 3 pod(s), 0 opted out (kraken.io/profiling: disabled); labelled 1 node(s), "
                        "2 not found; 6 object(s) read, 4 patched, 0 unchanged; ",
                        0),
            0u)
      << r.out;
  ASSERT_EQ(requests.size(), 14u);
  EXPECT_EQ(requests[0], "GET /api/v1/namespaces/ml/pods/infer-t4 Bearer sa-token");
  const std::string smp = " application/strategic-merge-patch+json ";
  EXPECT_EQ(requests[1], "PATCH /api/v1/namespaces/ml/pods/infer-t4" + smp +
                             R"({"metadata":{"annotations":{"kraken.io/colocation-class":"share",)"
                             R"("kraken.io/demand":"v1;type=unknown;busy=0.000;mem-gib=0.0;dev=t4",)"
                             R"("kraken.io/gpu-util-p95":"0.000","kraken.io/workload-type":"unknown"}}})");
  // notebook-0 runs in a MIG slice: its ratios are of the slice, so no kraken.io/demand.
  EXPECT_EQ(requests[3], "PATCH /api/v1/namespaces/ml/pods/notebook-0" + smp +
                             R"({"metadata":{"annotations":{"kraken.io/colocation-class":"mig",)"
                             R"("kraken.io/gpu-util-p95":"0.996","kraken.io/workload-type":"unknown"}}})");
  EXPECT_EQ(requests[5], "PATCH /api/v1/namespaces/ml/pods/trainer-0" + smp +
                             R"({"metadata":{"annotations":{"kraken.io/colocation-class":"dedicated",)"
                             R"("kraken.io/demand":"v1;type=unknown;busy=0.996;dram=0.691;pcie-gbs=0.13;mem-gib=4.7;)"
                             R"(dev=a100-40gb-sxm",)"
                             R"("kraken.io/gpu-util-p95":"0.996","kraken.io/workload-type":"unknown"}}})");
  // Node labels from every node's DCGM series, whatever the namespace: the T4 host and the
  // A10G host (namespace ray-llm) are no Node of this cluster (404, skipped); the A100
  // node has one GPU (--gpu-model names it: the 2.4 exporter sends no modelName) with the
  // capture's one MIG instance, 1g.5gb.
  EXPECT_EQ(requests[6], "GET /api/v1/nodes/424773df46e0 Bearer sa-token");
  EXPECT_EQ(requests[7], "GET /api/v1/nodes/ip-11111 Bearer sa-token");
  EXPECT_EQ(requests[8], "GET /api/v1/nodes/ub20-a100-k8s Bearer sa-token");
  // The inventory's nodes are touched for their resident list too: no pod of the pass
  // runs on the A100 node (the test's pods carry no spec.nodeName), so `none`; then the
  // labels, in their own patch.
  EXPECT_EQ(requests[9], "PATCH /api/v1/nodes/ub20-a100-k8s" + smp +
                             R"({"metadata":{"annotations":{"kraken.io/resident-demand":"none"}}})");
  EXPECT_EQ(requests[10], "PATCH /api/v1/nodes/ub20-a100-k8s" + smp +
                              R"({"metadata":{"labels":{"kraken.io/gpu-class":"a100-40gb-sxm",)"
                              R"("kraken.io/gpu-count":"1","kraken.io/mig-layout":"1g.5gb-x1"}}})");
  // MIG rebalancing (docs/mig-rebalancing.md): notebook-0 keeps its 1g.5gb slice, so the
  // node's demand is 1g.5gb-x1; this API server keeps no labels, so the node's layout is
  // unknown and the wish is held (its state and the recommendation on the node).
  EXPECT_EQ(requests[11], "GET /api/v1/nodes/ub20-a100-k8s Bearer sa-token");
  EXPECT_EQ(requests[12], "GET /api/v1/nodes/ub20-a100-k8s Bearer sa-token");
  EXPECT_EQ(requests[13].rfind("PATCH /api/v1/nodes/ub20-a100-k8s" + smp +
                                   R"({"metadata":{"annotations":{"kraken.io/mig-rebalance":"v1;pending=1g.5gb-x1;since=)",
                               0),
            0u)
      << requests[13];
  EXPECT_NE(requests[13].find(R"x("kraken.io/mig-recommendation":"1g.5gb-x1 (hold: demand has asked for 1g.5gb-x1 )x"
                              R"x(instead of an unknown layout for 0 min of the 30 min hold)"}}})x"),
            std::string::npos)
      << requests[13];
}

TEST_F(PrometheusClusterTest, AnnotateDryRunPrintsNodeLabels) {
  RunResult r = RunKraken("annotate --prometheus " + server_->url() + " --namespace ml --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // No --gpu-model: the A100 without modelName gets no class; the T4's modelName names it.
  EXPECT_NE(r.out.find("node/424773df46e0 kraken.io/gpu-class=t4 kraken.io/gpu-count=1 kraken.io/mig-layout=none\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("node/ub20-a100-k8s kraken.io/gpu-count=1 kraken.io/mig-layout=1g.5gb-x1\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("node/ip-11111 kraken.io/gpu-count=1 kraken.io/mig-layout=none\n"), std::string::npos) << r.out;
}

// A stateful loopback API server for the controller mode: serves pods and one node,
// applies the patches, so a second pass with the same results sees its own values.
class StatefulApiServer {
 public:
  StatefulApiServer() {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back("GET " + req.path);
      auto it = objects_.find(req.path);
      if (it == objects_.end()) {
        res.status = 404;
        return;
      }
      res.set_content(Render(it->second), "application/json");
    });
    server_.Patch(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back("PATCH " + req.path + " " + req.body);
      auto it = objects_.find(req.path);
      auto meta = k8s::ParseObjectMeta(req.body, "");
      if (it == objects_.end() || !meta.ok()) {
        res.status = 422;
        return;
      }
      for (const auto& [k, v] : meta->annotations) it->second.annotations[k] = v;
      for (const auto& [k, v] : meta->labels) it->second.labels[k] = v;
      res.set_content(Render(it->second), "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~StatefulApiServer() {
    server_.stop();
    thread_.join();
  }
  void Add(const std::string& path, const std::map<std::string, std::string>& annotations,
           const std::map<std::string, std::string>& labels = {}) {
    objects_[path].annotations = annotations;
    objects_[path].labels = labels;
  }
  std::vector<std::string> Requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  struct Object {
    std::map<std::string, std::string> annotations, labels;
  };
  static std::string Render(const Object& o) {
    auto map = [](const std::map<std::string, std::string>& m) {
      std::string text = "{";
      for (const auto& [k, v] : m) text += (text.size() > 1 ? ",\"" : "\"") + k + "\":\"" + v + "\"";
      return text + "}";
    };
    return R"({"metadata":{"annotations":)" + map(o.annotations) + R"(,"labels":)" + map(o.labels) + "}}";
  }
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<std::string> requests_;
  std::map<std::string, Object> objects_;
};

TEST_F(PrometheusClusterTest, ControllerModeTwoPassesThenSigterm) {
  StatefulApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/trainer-0", {{"kraken.io/profiling", "disabled"}});  // opted out
  api.Add("/api/v1/namespaces/ml/pods/notebook-0", {});
  api.Add("/api/v1/namespaces/ml/pods/infer-t4", {{"kraken.io/profiling", "enabled"}});
  // A stale entry of ml (a pod that left) and one of another namespace, which this
  // controller (--namespace ml) does not own.
  api.Add("/api/v1/nodes/ub20-a100-k8s",
          {{"kraken.io/resident-demand", "v1;pod=ml/left-0;gpu=0;busy=0.500,v1;pod=research/r-0;gpu=0;busy=0.300"}});
  std::string dir = testing::MakeTempDir("controller");
  std::ofstream(dir + "/token") << "sa-token\n";
  testing::ChildProcess kraken(
      {KRAKEN_BINARY_PATH, "annotate", "--prometheus", server_->url(), "--namespace", "ml", "--gpu-model",
       "a100-40gb-sxm", "--kube-api", api.url(), "--token-file", dir + "/token", "--every", "1s"},
      dir + "/log");
  std::string log = kraken.WaitForLog("pass 2: ", std::chrono::seconds(60));
  ASSERT_FALSE(log.empty()) << kraken.Log();
  auto stop_sent = std::chrono::steady_clock::now();
  EXPECT_EQ(kraken.Stop(SIGTERM, std::chrono::seconds(20)), 0) << kraken.Log();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_sent, std::chrono::seconds(20));
  log = kraken.Log();
  EXPECT_NE(log.find("pass 1: annotated 2 pod(s), 1 opted out (kraken.io/profiling: disabled); labelled 1 node(s), "
                     "2 not found; 6 object(s) read, 3 patched, 0 unchanged; resident entries dropped: 1 stale, "
                     "0 unparsable, 0 over the cap; "),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("pass 2: annotated 2 pod(s), 1 opted out (kraken.io/profiling: disabled); labelled 1 node(s), "
                     "2 not found; 6 object(s) read, 0 patched, 3 unchanged; "),
            std::string::npos)
      << log;
  EXPECT_EQ(log.find("failed"), std::string::npos) << log;
  std::vector<std::string> patches;
  for (const std::string& q : api.Requests())
    if (q.rfind("PATCH ", 0) == 0) patches.push_back(q);
  // Only the first pass wrote; the opted-out trainer was never patched.
  ASSERT_EQ(patches.size(), 5u);
  EXPECT_EQ(patches[0].rfind("PATCH /api/v1/namespaces/ml/pods/infer-t4 ", 0), 0u) << patches[0];
  EXPECT_EQ(patches[1].rfind("PATCH /api/v1/namespaces/ml/pods/notebook-0 ", 0), 0u) << patches[1];
  // The node is in the GPU inventory: ml's stale entry leaves, research's stays.
  EXPECT_EQ(patches[2], R"(PATCH /api/v1/nodes/ub20-a100-k8s {"metadata":{"annotations":)"
                        R"({"kraken.io/resident-demand":"v1;pod=research/r-0;gpu=0;busy=0.300"}}})");
  EXPECT_EQ(patches[3], R"(PATCH /api/v1/nodes/ub20-a100-k8s {"metadata":{"labels":{"kraken.io/gpu-class":)"
                        R"("a100-40gb-sxm","kraken.io/gpu-count":"1","kraken.io/mig-layout":"1g.5gb-x1"}}})");
  // MIG demand (notebook-0's 1g.5gb) is the measured layout just labelled: keep.
  EXPECT_EQ(patches[4], R"(PATCH /api/v1/nodes/ub20-a100-k8s {"metadata":{"annotations":{"kraken.io/mig-rebalance":"v1",)"
                        R"x("kraken.io/mig-recommendation":"1g.5gb-x1 (keep: demand asks for the current layout 1g.5gb-x1)"}}})x");
  EXPECT_NE(log.find("; MIG: 1 keep; "), std::string::npos) << log;
}

// --apply-mig: the node runs the mig-manager's stock all-1g.5gb config, its measured demand
// (notebook-0's slice) asks for 1g.5gb-x1; with --mig-hold 0s the first pass changes the
// nvidia.com/mig.config label, the second finds the layout current.
TEST_F(PrometheusClusterTest, ControllerAppliesAMigLayoutChange) {
  StatefulApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/trainer-0", {});
  api.Add("/api/v1/namespaces/ml/pods/notebook-0", {});
  api.Add("/api/v1/namespaces/ml/pods/infer-t4", {});
  api.Add("/api/v1/nodes/ub20-a100-k8s", {}, {{"nvidia.com/mig.config", "all-1g.5gb"}});
  std::string dir = testing::MakeTempDir("controller_mig");
  std::ofstream(dir + "/token") << "sa-token\n";
  testing::ChildProcess kraken({KRAKEN_BINARY_PATH, "annotate", "--prometheus", server_->url(), "--namespace", "ml",
                                "--gpu-model", "a100-40gb-sxm", "--kube-api", api.url(), "--token-file",
                                dir + "/token", "--every", "1s", "--apply-mig", "--mig-hold", "0s"},
                               dir + "/log");
  std::string log = kraken.WaitForLog("pass 2: ", std::chrono::seconds(60));
  ASSERT_FALSE(log.empty()) << kraken.Log();
  EXPECT_EQ(kraken.Stop(SIGTERM, std::chrono::seconds(20)), 0) << kraken.Log();
  log = kraken.Log();
  EXPECT_NE(log.find("pass 1: "), std::string::npos) << log;
  EXPECT_NE(log.find("; MIG: 1 change, 1 labelled; "), std::string::npos) << log;
  EXPECT_NE(log.find("; MIG: 1 keep; "), std::string::npos) << log;
  int labelled = 0;
  for (const std::string& q : api.Requests())
    if (q == R"(PATCH /api/v1/nodes/ub20-a100-k8s {"metadata":{"labels":{"nvidia.com/mig.config":"1g.5gb-x1"}}})")
      ++labelled;
  EXPECT_EQ(labelled, 1);
}

// --write-profiles (docs/crd.md): one GpuWorkloadProfile per workload, from the week of
// real A100/T4 DCGM history, through the loopback fake API server the k8s tests use.
TEST_F(PrometheusClusterTest, AnnotateWritesGpuWorkloadProfiles) {
  k8s::testing::FakeApiServer api;
  k8s::testing::FakeObject trainer;
  trainer.owner_json = R"([{"apiVersion":"batch/v1","kind":"Job","name":"trainer","controller":true}])";
  api.Add("/api/v1/namespaces/ml/pods/trainer-0", trainer);
  api.Add("/api/v1/namespaces/ml/pods/notebook-0", {});
  api.Add("/api/v1/namespaces/ml/pods/infer-t4", {});
  api.Add("/api/v1/nodes/ub20-a100-k8s", {});
  std::string token = testing::MakeTempDir("profiles_token") + "/token";
  std::ofstream(token) << "sa-token\n";
  std::string args = "annotate --prometheus " + server_->url() + " --namespace ml --gpu-model a100-40gb-sxm --kube-api " +
                     "http://127.0.0.1:" + std::to_string(api.Config().port) + " --token-file " + token + " --write-profiles";
  RunResult r = RunKraken(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("; profiles: 3 written, 0 unchanged; "), std::string::npos) << r.out;
  simdjson::dom::parser parser;
  const std::string base = "/apis/kraken.io/v1alpha1/namespaces/ml/gpuworkloadprofiles/";
  simdjson::dom::element job = parser.parse(api.Raw(base + "job-trainer"));
  EXPECT_EQ(std::string_view(job["spec"]["workload"]["kind"]), "Job");
  EXPECT_EQ(std::string_view(job["status"]["class"]), "unknown");
  EXPECT_DOUBLE_EQ(double(job["status"]["busyP95"]), 0.996);
  EXPECT_DOUBLE_EQ(double(job["status"]["memoryPeakGiB"]), 4.7);  // FB_USED 4845 MiB
  EXPECT_EQ(std::string_view(job["status"]["recommendation"]), "keep: busy: compute p95 99.6% > 60.0%");
  EXPECT_EQ(int64_t(job["status"]["pods"]), 1);
  simdjson::dom::parser parser2;
  simdjson::dom::element notebook = parser2.parse(api.Raw(base + "pod-notebook-0"));
  EXPECT_EQ(std::string_view(notebook["spec"]["workload"]["kind"]), "Pod");
  EXPECT_EQ(std::string_view(notebook["status"]["recommendation"]), "keep: already in MIG slice 1g.5gb");
  // The same history again: nothing to write.
  RunResult again = RunKraken(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("; profiles: 0 written, 3 unchanged; "), std::string::npos) << again.out;
}

// --profile-runs (docs/kubernetes.md, "Profiled experiments"): the first pass creates the
// ncu Job of an annotated pod, with --ncu-image and --ncu-launch-count; once the Job has
// succeeded with a real ncu CSV as its log, the next pass stores it in the profile.
TEST_F(PrometheusClusterTest, AnnotateProfileRunsCreateTheJobThenImportItsLog) {
  k8s::testing::FakeApiServer api;
  api.Add("/api/v1/nodes/ub20-a100-k8s", {});
  api.AddRaw("/api/v1/namespaces/ml/pods/sgemm-a",
             R"({"metadata":{"name":"sgemm-a","namespace":"ml","annotations":{"kraken.io/profile-run":"ncu"}},)"
             R"("spec":{"containers":[{"name":"gemm","image":"sgemm:1","command":["/bin/sgemm"],)"
             R"("resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})");
  std::string token = testing::MakeTempDir("profile_runs_token") + "/token";
  std::ofstream(token) << "sa-token\n";
  std::string args = "annotate --prometheus " + server_->url() + " --namespace ml --gpu-model a100-40gb-sxm --kube-api " +
                     "http://127.0.0.1:" + std::to_string(api.Config().port) + " --token-file " + token +
                     " --profile-runs --ncu-image registry.example/sgemm-ncu:12.4 --ncu-launch-count 20";
  RunResult first = RunKraken(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("; profile runs: 1 workload(s), 1 Job(s) created, 1 pending, 0 running, 0 done, 0 failed, "
                           "0 finished earlier; "),
            std::string::npos)
      << first.out;
  const std::string job_path = "/apis/batch/v1/namespaces/ml/jobs/kraken-ncu-pod-sgemm-a";
  simdjson::dom::parser parser;
  simdjson::dom::element container = parser.parse(api.Raw(job_path))["spec"]["template"]["spec"]["containers"].at(0);
  EXPECT_EQ(std::string_view(container["image"]), "registry.example/sgemm-ncu:12.4");
  EXPECT_NE(simdjson::minify(container["command"]).find(R"("--launch-count","20","/bin/sgemm"])"), std::string::npos);
  api.PatchRaw(job_path, R"({"status":{"succeeded":1}})");
  api.AddRaw("/api/v1/namespaces/ml/pods/kraken-ncu-pod-sgemm-a-q8z",
             R"({"metadata":{"name":"kraken-ncu-pod-sgemm-a-q8z","labels":{"kraken.io/profile-run-of":)"
             R"("kraken-ncu-pod-sgemm-a"}}})");
  api.AddLog("/api/v1/namespaces/ml/pods/kraken-ncu-pod-sgemm-a-q8z/log",
             testing::ReadFileOrDie(testing::DataPath("ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv")));
  RunResult second = RunKraken(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("0 Job(s) created, 0 pending, 0 running, 1 done, 0 failed"), std::string::npos) << second.out;
  simdjson::dom::parser parser2;
  simdjson::dom::element ncu =
      parser2.parse(api.Raw("/apis/kraken.io/v1alpha1/namespaces/ml/gpuworkloadprofiles/pod-sgemm-a"))["status"]["ncu"];
  EXPECT_EQ(int64_t(ncu["kernels"]), 3);
  EXPECT_EQ(std::string_view(ncu["bound"]), "compute");
}

TEST(AnnotateControllerTest, FailedPassesAreLoggedAndRetriedOnePassExitsOne) {
  std::string dir = testing::MakeTempDir("controller_down");
  std::ofstream(dir + "/token") << "t\n";
  // Nothing listens on port 1: Prometheus is down.
  testing::ChildProcess kraken(
      {KRAKEN_BINARY_PATH, "annotate", "--prometheus", "http://127.0.0.1:1", "--namespace", "ml", "--kube-api",
       "http://127.0.0.1:1", "--token-file", dir + "/token", "--every", "1s"},
      dir + "/log");
  std::string log = kraken.WaitForLog("kraken: annotate pass 2 failed: ", std::chrono::seconds(30));
  ASSERT_FALSE(log.empty()) << kraken.Log();
  EXPECT_EQ(kraken.Stop(SIGINT, std::chrono::seconds(10)), 0) << kraken.Log();
  EXPECT_EQ(log.rfind("kraken: annotate pass 1 failed: ", 0), 0u) << log;
  // Prometheus down is an outage, not bad input: exit 1 (kExitFailure), one line naming it.
  RunResult once = RunKraken("annotate --prometheus http://127.0.0.1:1 --namespace ml --kube-api http://127.0.0.1:1");
  EXPECT_EQ(once.exit_code, 1) << once.err;
  EXPECT_EQ(once.err.rfind("kraken: error: Prometheus http://127.0.0.1:1: ", 0), 0u) << once.err;
  EXPECT_EQ(once.err.find('\n'), once.err.size() - 1) << once.err;
  EXPECT_NE(once.err.find("connection refused"), std::string::npos) << once.err;
  ExpectOneLineError(RunKraken("annotate --prometheus http://127.0.0.1:1 --namespace ml --every 10ms --kube-api "
                               "http://127.0.0.1:1"),
                     "--every '10ms'");
}

// Live: Prometheus scrapes a loopback replay of the A100 capture as /metrics every second.
// The scrape target carries namespace/pod labels of the exporter's own pod, so the real
// Prometheus renames the workload's labels to exported_namespace/exported_pod itself.
TEST(PrometheusLiveScrapeTest, ScrapedReplayOfTheA100CaptureReadsBackPerPod) {
  std::string capture = testing::ReadFileOrDie(testing::DataPath(kA100));
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
  EXPECT_DOUBLE_EQ(double(pod["memory_bytes"]["max"]), 4845 * kMiB);
  EXPECT_EQ(std::string_view(doc["source"]["query"]).find("exported_namespace=\"ml\"") != std::string_view::npos, true);
}

}  // namespace
}  // namespace kraken
