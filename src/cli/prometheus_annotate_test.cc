// `kraken annotate --prometheus` in one pass against a real Prometheus 2.x on loopback
// holding a week of real dcgm-exporter history (prometheus_cluster_testing.h): the
// annotations and node labels written through a loopback API server, a dry run, the
// GpuWorkloadProfiles (--write-profiles) and the ncu profile runs (--profile-runs).
#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <fstream>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/testing/test_data.h"
#include "cli/cli_test_support.h"
#include "cli/prometheus_cluster_testing.h"
#include "k8s/client/fake_api_server.h"

namespace kraken {
namespace {

using prometheus_cluster_testing::PrometheusClusterTest;

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

// --profile-runs (docs/k8s-controller.md, "Profiled experiments"): the first pass creates the
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

}  // namespace
}  // namespace kraken
