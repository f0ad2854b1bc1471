// GpuWorkloadProfile objects against the loopback fake API server: created when missing,
// merge-patched only when a value changed (the CRD schema itself is checked against the
// object in src/k8s/deploy_manifests_test.cc).
#include "k8s/controller/workload_profile.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "k8s/client/fake_api_server.h"

namespace kraken::k8s {
namespace {

constexpr char kJobProfilePath[] = "/apis/kraken.io/v1alpha1/namespaces/ml/gpuworkloadprofiles/job-bert-ft";

TEST(WorkloadProfile, AggregatesPodsAndNamesTheObject) {
  PodProfileFacts a{"training", "", 0.62, 18.25, std::nullopt, "share: GPU group 1"};
  PodProfileFacts b{"training", "", 0.957, 12.0, std::nullopt, "keep: busy: compute p95 95.7% > 60.0%"};
  WorkloadProfile p = AggregateWorkload({"batch/v1", "Job", "ml", "bert-ft"}, {a, b});
  EXPECT_EQ(p.pods, 2);
  EXPECT_EQ(p.facts.workload_class, "training");
  EXPECT_DOUBLE_EQ(*p.facts.busy_p95, 0.957);
  EXPECT_DOUBLE_EQ(*p.facts.memory_peak_gib, 18.25);
  EXPECT_EQ(p.facts.recommendation, b.recommendation);  // the busiest pod's
  b.workload_class = "inference";
  EXPECT_EQ(AggregateWorkload({"v1", "Pod", "ml", "x"}, {a, b}).facts.workload_class, "mixed");
  EXPECT_EQ(WorkloadProfileName({"kubeflow.org/v1", "PyTorchJob", "ml", "Big_Run"}), "pytorchjob-big-run");
  EXPECT_EQ(WorkloadProfilePath({"batch/v1", "Job", "ml", "bert-ft"}), kJobProfilePath);
  EXPECT_EQ(WorkloadProfileJson(p, "2026-11-26T08:40:00Z"),
            R"({"apiVersion":"kraken.io/v1alpha1","kind":"GpuWorkloadProfile","metadata":{"name":"job-bert-ft",)"
            R"("namespace":"ml","labels":{"app.kubernetes.io/managed-by":"kraken"}},"spec":{"workload":{)"
            R"("apiVersion":"batch/v1","kind":"Job","name":"bert-ft"}},"status":{"class":"training","busyP95":0.957,)"
            R"("memoryPeakGiB":18.3,"recommendation":"keep: busy: compute p95 95.7% > 60.0%","pods":2,)"
            R"("lastUpdated":"2026-11-26T08:40:00Z"}})");
}

TEST(WorkloadProfile, CreatedThenPatchedOnlyWhenAValueChanges) {
  testing::FakeApiServer api;
  KubeClient client(api.Config());
  WorkloadProfile p = AggregateWorkload({"batch/v1", "Job", "ml", "bert-ft"},
                                        {{"training", "", 0.62, 18.25, 0.4, "share: GPU group 1"}});
  Result<bool> created = UpsertWorkloadProfile(client, p, "2026-11-26T08:40:00Z");
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_TRUE(*created);
  std::vector<testing::Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].method + " " + r[0].path, std::string("GET ") + kJobProfilePath);
  EXPECT_EQ(r[1].method + " " + r[1].path, "POST /apis/kraken.io/v1alpha1/namespaces/ml/gpuworkloadprofiles");
  // The same values a pass later: read, not written (lastUpdated stays the first time).
  EXPECT_FALSE(*UpsertWorkloadProfile(client, p, "2026-11-26T08:45:00Z"));
  EXPECT_EQ(api.TakeRequests().size(), 1u);
  // Busier, and the disagg score no longer known: one merge patch, the score deleted.
  p.facts.busy_p95 = 0.91;
  p.facts.disagg_score.reset();
  EXPECT_TRUE(*UpsertWorkloadProfile(client, p, "2026-11-26T08:50:00Z"));
  r = api.TakeRequests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].method, "PATCH");
  EXPECT_EQ(r[1].content_type, kJsonMergePatch);
  simdjson::dom::parser parser;
  simdjson::dom::element stored = parser.parse(api.Raw(kJobProfilePath));
  EXPECT_DOUBLE_EQ(double(stored["status"]["busyP95"]), 0.91);
  EXPECT_TRUE(stored["status"]["disaggScore"].error());
  EXPECT_EQ(std::string_view(stored["status"]["lastUpdated"]), "2026-11-26T08:50:00Z");
  EXPECT_EQ(std::string_view(stored["metadata"]["name"]), "job-bert-ft");
  EXPECT_FALSE(*UpsertWorkloadProfile(client, p, "2026-11-26T08:55:00Z"));
}

}  // namespace
}  // namespace kraken::k8s
