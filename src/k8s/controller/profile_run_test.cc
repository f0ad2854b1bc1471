// Profiled experiments against the loopback fake API server: the Job made from an
// annotated workload (once), its real Nsight Compute CSV (../shared/data/ncu) served as
// the Job pod's log, imported by the ncu-csv importer into the workload's
// GpuWorkloadProfile, and the scheduler extender's decision for a later pod of the same
// workload reading it; then the ways a run fails.
#include "k8s/controller/profile_run.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <thread>

#include "app/ncu_run_facts.h"
#include "base/testing/test_data.h"
#include "k8s/client/fake_api_server.h"
#include "k8s/extender/extender_server.h"

namespace kraken::k8s {
namespace {

constexpr char kPods[] = "/api/v1/namespaces/ml/pods";
constexpr char kJobs[] = "/apis/batch/v1/namespaces/ml/jobs";
constexpr char kSgemmJob[] = "kraken-ncu-job-sgemm";
constexpr char kImage[] = "registry.example/sgemm-ncu:12.4";

// A GPU pod as the API server holds it; `owner` "" for a bare pod, else a batch Job's name.
std::string ProfiledPodJson(const std::string& name, const std::string& owner, const std::string& annotations,
                            const std::string& command = R"("command":["/bin/sgemm"],)") {
  std::string owners = owner.empty() ? "" : R"(,"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":")" +
                                                owner + R"(","uid":"uid-)" + owner + R"(","controller":true}])";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"ml","uid":"uid-)" +
         name + R"(","annotations":{)" + annotations + "}" + owners +
         R"(},"spec":{"serviceAccountName":"trainer","nodeSelector":{"gpu":"a100"},"containers":[)"
         R"({"name":"log-shipper","image":"fluent-bit:3"},{"name":"gemm","image":"sgemm:1",)" +
         command + R"("args":["--n","4096"],"env":[{"name":"N","value":"4096"}],)"
         R"("resources":{"limits":{"nvidia.com/gpu":"1"},"requests":{"cpu":"2"}}}]}})";
}

std::string RunLabelledPodJson(const std::string& name, const std::string& job) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"ml","labels":{"kraken.io/profile-run-of":")" + job + R"("}},"spec":{"containers":[]}})";
}

// The Job's pod finished and its stdout is `log` (ncu prints its table after the program).
void CompleteProfileJob(testing::FakeApiServer& api, const std::string& job, const std::string& log) {
  api.PatchRaw(std::string(kJobs) + "/" + job, R"({"status":{"active":null,"succeeded":1}})");
  api.AddRaw(std::string(kPods) + "/" + job + "-x7k2p", RunLabelledPodJson(job + "-x7k2p", job));
  api.AddLog(std::string(kPods) + "/" + job + "-x7k2p/log",
             "==PROF== Connected to process 31 (/bin/sgemm)\nsgemm: n=4096 done\n" + log);
}

std::string PodAnnotation(testing::FakeApiServer& api, const std::string& pod, const std::string& key) {
  simdjson::dom::parser parser;
  std::string_view value;
  if (parser.parse(api.Raw(std::string(kPods) + "/" + pod))["metadata"]["annotations"][key].get(value)) return "<unset>";
  return std::string(value);
}

int CountRequests(const std::vector<testing::Recorded>& requests, const std::string& method, const std::string& path) {
  int n = 0;
  for (const testing::Recorded& r : requests) n += r.method == method && r.path == path;
  return n;
}

struct ProfileRunFixture {
  testing::FakeApiServer api;
  KubeClient client{api.Config()};
  ProfileRunner runner{client, ProfileRunOptions{}, ImportNcuRunLog};

  ProfileRunStats Pass() {
    ProfileRunStats stats;
    Status status = runner.RunPass({"ml"}, "2026-11-26T12:00:00Z", &stats);
    EXPECT_TRUE(status.ok()) << status.message();
    return stats;
  }
};

TEST(ProfileRun, OneJobPerWorkloadWithTheWorkloadsSpecWrappedByNcu) {
  ProfileRunFixture f;
  const std::string asks = R"("kraken.io/profile-run":"ncu","kraken.io/profile-image":")" + std::string(kImage) + "\"";
  f.api.AddRaw(std::string(kPods) + "/sgemm-a", ProfiledPodJson("sgemm-a", "sgemm", asks));
  f.api.AddRaw(std::string(kPods) + "/sgemm-b", ProfiledPodJson("sgemm-b", "sgemm", asks));
  f.api.AddRaw(std::string(kPods) + "/web-1", ProfiledPodJson("web-1", "", R"("team":"web")"));
  ProfileRunStats stats = f.Pass();
  EXPECT_EQ(stats.workloads, 1);
  EXPECT_EQ(stats.created, 1);
  EXPECT_EQ(stats.pending, 1);
  EXPECT_EQ(CountRequests(f.api.TakeRequests(), "POST", kJobs), 1);
  simdjson::dom::parser parser;
  simdjson::dom::element job = parser.parse(f.api.Raw(std::string(kJobs) + "/" + kSgemmJob));
  EXPECT_EQ(std::string_view(job["metadata"]["labels"]["kraken.io/profile-run-of"]), kSgemmJob);
  EXPECT_EQ(std::string_view(job["metadata"]["ownerReferences"].at(0)["uid"]), "uid-sgemm");
  EXPECT_EQ(int64_t(job["spec"]["backoffLimit"]), 0);
  simdjson::dom::element spec = job["spec"]["template"]["spec"];
  EXPECT_EQ(std::string_view(job["spec"]["template"]["metadata"]["labels"]["kraken.io/profile-run-of"]), kSgemmJob);
  EXPECT_EQ(std::string_view(spec["restartPolicy"]), "Never");
  EXPECT_EQ(std::string_view(spec["serviceAccountName"]), "trainer");
  EXPECT_EQ(std::string_view(spec["nodeSelector"]["gpu"]), "a100");
  ASSERT_EQ(simdjson::dom::array(spec["containers"]).size(), 1u);  // the GPU container alone
  simdjson::dom::element gemm = spec["containers"].at(0);
  EXPECT_EQ(std::string_view(gemm["name"]), "gemm");
  EXPECT_EQ(std::string_view(gemm["image"]), kImage);
  EXPECT_EQ(simdjson::minify(gemm["command"]),
            R"(["ncu","--csv","--page","raw","--section","SpeedOfLight","--section","SpeedOfLight_RooflineChart",)"
            R"("--section","LaunchStats","--section","Occupancy","--target-processes","all","--launch-count","50",)"
            R"("/bin/sgemm"])");
  EXPECT_EQ(simdjson::minify(gemm["args"]), R"(["--n","4096"])");
  EXPECT_EQ(simdjson::minify(gemm["resources"]), R"({"limits":{"nvidia.com/gpu":"1"},"requests":{"cpu":"2"}})");
  EXPECT_EQ(simdjson::minify(gemm["env"]), R"([{"name":"N","value":"4096"}])");
  for (const char* pod : {"sgemm-a", "sgemm-b"}) {
    EXPECT_EQ(PodAnnotation(f.api, pod, kProfileRunStatusKey), "pending");
    EXPECT_EQ(PodAnnotation(f.api, pod, kProfileRunJobKey), kSgemmJob);
  }
  EXPECT_EQ(PodAnnotation(f.api, "web-1", kProfileRunStatusKey), "<unset>");
  // Later passes: the Job is read, never posted again; its pods are not workloads.
  EXPECT_EQ(f.Pass().pending, 1);
  f.api.PatchRaw(std::string(kJobs) + "/" + kSgemmJob, R"({"status":{"active":1}})");
  f.api.AddRaw(std::string(kPods) + "/" + kSgemmJob + "-x7k2p", RunLabelledPodJson(std::string(kSgemmJob) + "-x7k2p", kSgemmJob));
  stats = f.Pass();
  EXPECT_EQ(stats.workloads, 1);
  EXPECT_EQ(stats.running, 1);
  EXPECT_EQ(stats.created, 0);
  EXPECT_EQ(CountRequests(f.api.TakeRequests(), "POST", kJobs), 0);
  EXPECT_EQ(PodAnnotation(f.api, "sgemm-b", kProfileRunStatusKey), "running");
}

// The extender's /explain for a pod of `owner` (a batch Job) with a demand vector.
std::string ExplainLaterPod(const ExtenderServerOptions& options, const std::string& owner) {
  httplib::Server server;
  AddExtenderRoutes(server, options);
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::string args =
      R"({"pod":{"metadata":{"name":")" + owner + R"(-late","namespace":"ml","ownerReferences":[{"apiVersion":)"
      R"("batch/v1","kind":"Job","name":")" + owner + R"(","uid":"u","controller":true}],"annotations":{)"
      R"("kraken.io/demand":"v1;type=training;busy=0.620;sm=0.550;dram=0.700;mem-gib=18.2"}},)"
      R"("spec":{"containers":[{"name":"g","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}},)"
      R"("nodes":{"items":[{"metadata":{"name":"gpu-1","labels":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-40GB",)"
      R"("nvidia.com/gpu.count":"1","nvidia.com/gpu.replicas":"2",)"
      R"("nvidia.com/gpu.sharing-strategy":"mps"},"annotations":{"kraken.io/resident-demand":)"
      R"("v1;pod=ml/stream;gpu=0;type=inference;busy=0.400;sm=0.300;dram=0.650;mem-gib=9.0"}},)"
      R"("status":{"allocatable":{"nvidia.com/gpu":"2"}}}]}})";
  httplib::Client client("127.0.0.1", port);
  auto response = client.Post("/explain", args, "application/json");
  server.stop();
  thread.join();
  return response ? response->body : "<no answer>";
}

TEST(ProfileRun, SucceededJobsLogIsImportedAndUsedForTheWorkloadsNextPod) {
  ProfileRunFixture f;
  f.api.AddRaw(std::string(kPods) + "/sgemm-a",
               ProfiledPodJson("sgemm-a", "sgemm", R"("kraken.io/profile-run":"ncu")"));
  f.api.AddRaw(std::string(kPods) + "/vecadd",
               ProfiledPodJson("vecadd", "", R"("kraken.io/profile-run":"ncu")"));
  ProfileRunOptions options;
  options.ncu_image = kImage;  // --ncu-image: no kraken.io/profile-image on these pods
  ProfileRunner runner(f.client, options, ImportNcuRunLog);
  ProfileRunStats stats;
  ASSERT_TRUE(runner.RunPass({"ml"}, "2026-11-26T12:00:00Z", &stats).ok());
  EXPECT_EQ(stats.created, 2);
  // The sgemm Job ran ncu --metrics on an A100; the bare pod's ran --page raw on a GTX 1080.
  CompleteProfileJob(f.api, kSgemmJob,
                     kraken::testing::ReadFileOrDie(kraken::testing::DataPath("ncu/a100-cc8.0_sgemm_nersc-roofline-metrics_details.csv")));
  CompleteProfileJob(f.api, "kraken-ncu-pod-vecadd",
                     kraken::testing::ReadFileOrDie(kraken::testing::DataPath("ncu/gtx1080-cc6.1_vectoradd_page-raw_all-metrics.csv")));
  f.api.TakeRequests();
  stats = {};
  ASSERT_TRUE(runner.RunPass({"ml"}, "2026-11-26T12:05:00Z", &stats).ok());
  EXPECT_EQ(stats.done, 2);
  std::vector<testing::Recorded> requests = f.api.TakeRequests();
  EXPECT_EQ(CountRequests(requests, "GET", std::string(kPods) + "/" + kSgemmJob + "-x7k2p/log"), 1);
  simdjson::dom::parser parser;
  simdjson::dom::element sgemm =
      parser.parse(f.api.Raw("/apis/kraken.io/v1alpha1/namespaces/ml/gpuworkloadprofiles/job-sgemm"))["status"]["ncu"];
  EXPECT_EQ(simdjson::minify(sgemm),
            R"({"job":"kraken-ncu-job-sgemm","kernels":3,"kernelTimeUs":46914817.7,"bound":"compute",)"
            R"("computeBoundShare":0.714,"memoryBoundShare":0,"imported":"2026-11-26T12:05:00Z"})");
  simdjson::dom::parser parser2;
  simdjson::dom::element vecadd =
      parser2.parse(f.api.Raw("/apis/kraken.io/v1alpha1/namespaces/ml/gpuworkloadprofiles/pod-vecadd"))["status"];
  EXPECT_EQ(std::string_view(vecadd["class"]), "unknown");
  EXPECT_EQ(simdjson::minify(vecadd["ncu"]),
            R"({"job":"kraken-ncu-pod-vecadd","kernels":3,"kernelTimeUs":8.2,"computeBoundShare":0,)"
            R"("memoryBoundShare":0,"device":"NVIDIA GeForce GTX 1080","imported":"2026-11-26T12:05:00Z"})");
  EXPECT_EQ(PodAnnotation(f.api, "sgemm-a", kProfileRunStatusKey), "done");
  EXPECT_EQ(PodAnnotation(f.api, "vecadd", kProfileRunStatusKey), "done");
  // Done is final: the next pass lists, and reads no Job, log or profile.
  stats = {};
  ASSERT_TRUE(runner.RunPass({"ml"}, "2026-11-26T12:10:00Z", &stats).ok());
  EXPECT_EQ(stats.finished, 2);
  EXPECT_EQ(f.api.TakeRequests().size(), 2u);  // the pod and Job LISTs

  // A later pod of the sgemm Job: the extender reads the profile and feeds ncu's kernel
  // bound mix to the co-location model, which the demand vector alone lacks.
  ExtenderServerOptions with;
  with.profiles = ApiWorkloadProfileLookup(std::make_shared<KubeClient>(f.api.Config()), std::chrono::seconds(30));
  simdjson::dom::parser p1, p2;
  simdjson::dom::element used = p1.parse(ExplainLaterPod(with, "sgemm"));
  simdjson::dom::element blind = p2.parse(ExplainLaterPod(ExtenderServerOptions{}, "sgemm"));
  EXPECT_EQ(std::string_view(used["stored_profile"]),
            "kernel bound mix cb=0.714;mb=0.000 from GpuWorkloadProfile job-sgemm (ncu run kraken-ncu-job-sgemm, 3 kernels)");
  EXPECT_TRUE(blind["stored_profile"].error());
  EXPECT_EQ(std::string_view(used["nodes"].at(0)["basis"]), "co-location model");
  // ncu found the kernels compute-bound (memory-bound share 0, where the demand vector
  // alone makes DRAM use 0.700 mean mostly memory-bound): on an MPS GPU whose resident
  // also streams DRAM, the pod's predicted slowdown drops from x1.582 to x1.465.
  EXPECT_EQ(int64_t(used["nodes"].at(0)["score"]), 56);
  EXPECT_EQ(int64_t(blind["nodes"].at(0)["score"]), 48);
  std::string_view with_reason = used["nodes"].at(0)["reason"], blind_reason = blind["nodes"].at(0)["reason"];
  EXPECT_NE(with_reason.find("pod x1.465 + ml/stream x1.372/x1.180"), std::string_view::npos) << with_reason;
  EXPECT_NE(blind_reason.find("pod x1.582 + ml/stream x1.372/x1.180"), std::string_view::npos) << blind_reason;
}

TEST(ProfileRun, FailuresAreReportedOnceWithTheirReason) {
  ProfileRunFixture f;
  const std::string asks = R"("kraken.io/profile-run":"ncu","kraken.io/profile-image":")" + std::string(kImage) + "\"";
  f.api.AddRaw(std::string(kPods) + "/oom", ProfiledPodJson("oom", "", asks));
  f.api.AddRaw(std::string(kPods) + "/garbled", ProfiledPodJson("garbled", "", asks));
  f.api.AddRaw(std::string(kPods) + "/entrypoint", ProfiledPodJson("entrypoint", "", asks, ""));
  f.api.AddRaw(std::string(kPods) + "/no-image", ProfiledPodJson("no-image", "", R"("kraken.io/profile-run":"ncu")"));
  f.api.AddRaw(std::string(kPods) + "/nsys", ProfiledPodJson("nsys", "", R"("kraken.io/profile-run":"nsys")"));
  ProfileRunStats stats = f.Pass();
  EXPECT_EQ(stats.created, 2);
  EXPECT_EQ(stats.failed, 3);
  EXPECT_EQ(CountRequests(f.api.TakeRequests(), "POST", kJobs), 2);
  EXPECT_EQ(PodAnnotation(f.api, "entrypoint", kProfileRunReasonKey),
            "container 'gemm' sets no command: ncu can only wrap a command the pod spec names");
  EXPECT_EQ(PodAnnotation(f.api, "no-image", kProfileRunReasonKey),
            "no ncu image: set kraken.io/profile-image or --ncu-image");
  EXPECT_EQ(PodAnnotation(f.api, "nsys", kProfileRunReasonKey), "kraken.io/profile-run 'nsys': kraken runs only 'ncu'");
  f.api.PatchRaw(std::string(kJobs) + "/kraken-ncu-pod-oom",
                 R"({"status":{"failed":1,"conditions":[{"type":"Failed","status":"True","reason":"BackoffLimitExceeded",)"
                 R"("message":"Job has reached the specified backoff limit"}]}})");
  CompleteProfileJob(f.api, "kraken-ncu-pod-garbled", "Segmentation fault (core dumped)\n");
  stats = f.Pass();
  EXPECT_EQ(stats.failed, 2);
  EXPECT_EQ(stats.finished, 3);
  EXPECT_EQ(PodAnnotation(f.api, "oom", kProfileRunStatusKey), "failed");
  EXPECT_EQ(PodAnnotation(f.api, "oom", kProfileRunReasonKey),
            "profile Job kraken-ncu-pod-oom failed: BackoffLimitExceeded: Job has reached the specified backoff limit");
  EXPECT_EQ(PodAnnotation(f.api, "garbled", kProfileRunStatusKey), "failed");
    // The importer's one-line error, naming the log it read.
  EXPECT_EQ(PodAnnotation(f.api, "garbled", kProfileRunReasonKey),
            "log of pod ml/kraken-ncu-pod-garbled-x7k2p: line 1: no Nsight Compute table: no line starts with an "
            "\"ID\" column (ncu --csv output)");
  EXPECT_EQ(f.api.Raw("/apis/kraken.io/v1alpha1/namespaces/ml/gpuworkloadprofiles/pod-garbled"), "<unset>");
  // Failed is final too.
  f.api.TakeRequests();
  EXPECT_EQ(f.Pass().finished, 5);
  EXPECT_EQ(f.api.TakeRequests().size(), 2u);
}

TEST(ProfileRun, JobNamesFitALabelValueAndStayDistinct) {
  EXPECT_EQ(ProfileJobName({"batch/v1", "Job", "ml", "sgemm"}), "kraken-ncu-job-sgemm");
  const std::string stem(60, 'a');
  std::string a = ProfileJobName({"apps/v1", "ReplicaSet", "ml", stem + "-1"});
  std::string b = ProfileJobName({"apps/v1", "ReplicaSet", "ml", stem + "-2"});
  EXPECT_EQ(a.size(), 63u);
  EXPECT_EQ(b.size(), 63u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, 55), "kraken-ncu-replicaset-" + std::string(32, 'a') + "-") << a;
}

TEST(ProfileRun, AJobDeletedBeforeItsResultWasReadFailsTheRun) {
  ProfileRunFixture f;
  f.api.AddRaw(std::string(kPods) + "/lost",
               ProfiledPodJson("lost", "", R"("kraken.io/profile-run":"ncu","kraken.io/profile-run-status":"running")"));
  ProfileRunStats stats = f.Pass();
  EXPECT_EQ(stats.failed, 1);
  EXPECT_EQ(stats.created, 0);
  EXPECT_EQ(PodAnnotation(f.api, "lost", kProfileRunReasonKey),
            "profile Job kraken-ncu-pod-lost is gone (deleted before kraken read its result)");
}

}  // namespace
}  // namespace kraken::k8s
