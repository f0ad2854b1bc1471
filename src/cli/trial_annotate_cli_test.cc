// `kraken trial --annotate-job` end to end: the real binary on the NVML replay library writes
// its result onto a Job of a loopback API server, which checks the exact requests (paths,
// verbs, auth header, patch body) the real API server would get (docs/trial.md).
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <thread>

#include "cli/cli_test_support.h"
#include "cli/trial_cli_test_support.h"

namespace kraken {
namespace {

using namespace trial_testing;

// A loopback API server holding one Job: records every request, answers GET with the Job
// and PATCH with 200 (the annotation writer's own contract tests are in src/k8s/).
class JobApiServer {
 public:
  struct Request {
    std::string method, path, content_type, authorization, body;
  };
  explicit JobApiServer(const std::string& job_path) {
    auto record = [this](const char* method, const httplib::Request& req) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back({method, req.path, req.get_header_value("Content-Type"),
                           req.get_header_value("Authorization"), req.body});
    };
    server_.Get(".*", [=, this](const httplib::Request& req, httplib::Response& res) {
      record("GET", req);
      if (req.path != job_path) {
        res.status = 404;
        return;
      }
      res.set_content(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"kraken-trial-h100",)"
                      R"("namespace":"kraken-system","annotations":{"team":"ml"}}})",
                      "application/json");
    });
    server_.Patch(".*", [=, this](const httplib::Request& req, httplib::Response& res) {
      record("PATCH", req);
      res.set_content("{}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~JobApiServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<Request> requests_;
};

TEST(TrialCliTest, AnnotateJobPatchesTheTrialResultOntoTheJob) {
  std::string dir = testing::MakeTempDir("trial_annotate");
  std::string workload = WriteWorkload(dir, "  " + Uuid(2, "MIG") + ") t=40 ;;");
  std::string token = dir + "/token";
  std::ofstream(token) << "test-token\n";
  const std::string job_path = "/apis/batch/v1/namespaces/kraken-system/jobs/kraken-trial-h100";
  JobApiServer api(job_path);
  RunResult r = RunKraken("trial --candidates " + Uuid(2, "MIG") + " --warmup 300ms --duration 1500ms --interval 50ms "
                          "--json --no-store --quiet --throughput-regex " + std::string(kRegex) +
                              " --annotate-job kraken-trial-h100 --namespace kraken-system --kube-api " + api.url() +
                              " --token-file " + token + " -- " + workload,
                          Replay("h100-mig.nvml", ""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  std::vector<JobApiServer::Request> requests = api.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].path, job_path);
  EXPECT_EQ(requests[0].authorization, "Bearer test-token");
  EXPECT_EQ(requests[1].method, "PATCH");
  EXPECT_EQ(requests[1].path, job_path);
  EXPECT_EQ(requests[1].content_type, "application/strategic-merge-patch+json");  // Job is a built-in kind
  EXPECT_EQ(requests[1].authorization, "Bearer test-token");
  // The body carries only kraken's two annotations (the Job's own "team" is left alone).
  simdjson::dom::parser patch_parser;
  simdjson::dom::element patch;
  ASSERT_EQ(patch_parser.parse(requests[1].body).get(patch), simdjson::SUCCESS) << requests[1].body;
  simdjson::dom::object annotations = patch["metadata"]["annotations"];
  EXPECT_EQ(annotations.size(), 2u) << requests[1].body;
  EXPECT_EQ(Str(annotations["kraken.io/trial-id"]), Str(doc["trial_id"]));
  std::string value = Str(annotations["kraken.io/trial-throughput"]);
  simdjson::dom::parser value_parser;
  simdjson::dom::element results;
  ASSERT_EQ(value_parser.parse(value).get(results), simdjson::SUCCESS) << value;
  ASSERT_EQ(results.get_array().size(), 1u);
  simdjson::dom::element c = results.at(0);
  EXPECT_EQ(Str(c["candidate"]), Uuid(2, "MIG"));
  EXPECT_EQ(Str(c["device"]), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(Str(c["mig_profile"]), "1g.10gb");
  EXPECT_DOUBLE_EQ(Number(c["gpu_fraction"]), 1.0 / 7);
  EXPECT_EQ(Number(c["throughput_median"]), 40);
  EXPECT_EQ(int64_t(c["readings"]), int64_t(doc["candidates"].at(0)["throughput"]["readings"]));
  EXPECT_NEAR(Number(c["per_gpu_fraction"]), 280, 1e-9);
  EXPECT_EQ(int64_t(c["rank"]), 1);
  ExpectNoSurvivor(dir, 3);
}

TEST(TrialCliTest, AnnotateJobErrors) {
  RunResult r = RunKraken("trial --no-store --annotate-job j --kube-api localhost:1 -- true", Replay("h100.nvml", ""));
  ExpectOneLineError(r, "--kube-api expects http(s)://HOST:PORT, got 'localhost:1'");
  // Outside a pod, without --kube-api: no service account.
  RunResult outside = RunKraken("trial --no-store --annotate-job j -- true",
                                "KUBERNETES_SERVICE_HOST= " + Replay("h100.nvml", ""));
  ExpectOneLineError(outside, "not running in a Kubernetes pod");
}

}  // namespace
}  // namespace kraken
