// `kraken annotate --every` (the controller mode) against a real Prometheus 2.x on
// loopback holding a week of real dcgm-exporter history (prometheus_cluster_testing.h)
// and a stateful loopback API server: passes that write once then find their own values,
// a MIG layout change applied, and failed passes logged and retried.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "cli/agent_process_testing.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_cluster_testing.h"
#include "k8s/controller/annotation_writer.h"

namespace kraken {
namespace {

using prometheus_cluster_testing::PrometheusClusterTest;

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

}  // namespace
}  // namespace kraken
