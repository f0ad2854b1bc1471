// Contract tests of the annotation writer against a loopback HTTP server that plays the
// API server: it records every request (verb, path, Content-Type, Authorization, body),
// serves the objects and applies the patches, so the second run shows that unchanged
// values are not written again. Object shapes follow the Kubernetes API reference (Pod
// metadata.ownerReferences with controller: true, spec.nodeName); the PyTorchJob is a
// kubeflow.org/v1 custom resource.
#include "k8s/controller/annotation_writer.h"

#include <gtest/gtest.h>

#include "base/json_writer.h"
#include "k8s/client/fake_api_server.h"
#include "k8s/controller/node_labels.h"

namespace kraken::k8s {
namespace {

using testing::FakeApiServer;
using testing::FakeObject;
using testing::Recorded;

constexpr char kPyTorchJobOwner[] =
    R"([{"apiVersion":"kubeflow.org/v1","kind":"PyTorchJob","name":"bert","uid":"1f0c","controller":true,"blockOwnerDeletion":true}])";

TEST(AnnotationWriterTest, PatchesPodsNodeAndOwningJobOnlyWhereValuesChange) {
  FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/bert-worker-0",
          {{{"kraken.io/workload-type", "training"}, {"team", "nlp"}}, kPyTorchJobOwner, "gpu-node-1", {}});
  api.Add("/api/v1/namespaces/ml/pods/bert-worker-1", {{}, kPyTorchJobOwner, "gpu-node-1", {}});
  api.Add("/api/v1/nodes/gpu-node-1", {});
  api.Add("/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/bert", {});
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  std::vector<PodResult> pods = {
      {"ml", "bert-worker-0", {"training", "compute", 0.9571, 0.42, "dedicated"}},
      {"ml", "bert-worker-1", {"training", "memory", 0.88, 0.61, "mig"}},
  };
  AnnotationStats stats;
  ASSERT_TRUE(writer.AnnotatePods(pods, &stats).ok());
  EXPECT_EQ(stats.objects_read, 4);
  EXPECT_EQ(stats.objects_patched, 4);
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 8u);
  for (const Recorded& q : r) EXPECT_EQ(q.authorization, "Bearer test-token") << q.path;
  EXPECT_EQ(r[0].method, "GET");
  EXPECT_EQ(r[0].path, "/api/v1/namespaces/ml/pods/bert-worker-0");
  EXPECT_EQ(r[1].method, "PATCH");
  EXPECT_EQ(r[1].path, "/api/v1/namespaces/ml/pods/bert-worker-0");
  EXPECT_EQ(r[1].content_type, "application/strategic-merge-patch+json");
  // workload-type already says training: not in the patch; "team" is never touched.
  EXPECT_EQ(r[1].body,
            R"({"metadata":{"annotations":{"kraken.io/bound":"compute","kraken.io/colocation-class":"dedicated",)"
            R"("kraken.io/disagg-score":"0.420","kraken.io/gpu-util-p95":"0.957"}}})");
  EXPECT_EQ(r[3].path, "/api/v1/namespaces/ml/pods/bert-worker-1");
  EXPECT_EQ(
      r[3].body,
      R"({"metadata":{"annotations":{"kraken.io/bound":"memory","kraken.io/colocation-class":"mig",)"
      R"("kraken.io/disagg-score":"0.610","kraken.io/gpu-util-p95":"0.880","kraken.io/workload-type":"training"}}})");
  const std::string aggregate =
      R"({"metadata":{"annotations":{"kraken.io/bound":"mixed","kraken.io/colocation-class":"dedicated",)"
      R"("kraken.io/disagg-score":"0.420","kraken.io/gpu-util-p95":"0.957","kraken.io/workload-type":"training"}}})";
  EXPECT_EQ(r[4].method, "GET");
  EXPECT_EQ(r[4].path, "/api/v1/nodes/gpu-node-1");
  EXPECT_EQ(r[5].method, "PATCH");
  EXPECT_EQ(r[5].content_type, "application/strategic-merge-patch+json");
  // The node also gets its resident list: the pass touched it and none of its pods has a
  // demand vector, so `none`.
  EXPECT_EQ(r[5].body,
            R"({"metadata":{"annotations":{"kraken.io/bound":"mixed","kraken.io/colocation-class":"dedicated",)"
            R"("kraken.io/disagg-score":"0.420","kraken.io/gpu-util-p95":"0.957",)"
            R"("kraken.io/resident-demand":"none","kraken.io/workload-type":"training"}}})");
  EXPECT_EQ(r[6].path, "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/bert");
  EXPECT_EQ(r[7].method, "PATCH");
  // A custom resource: the API server refuses strategic merge (415), so JSON merge patch.
  EXPECT_EQ(r[7].content_type, "application/merge-patch+json");
  EXPECT_EQ(r[7].body, aggregate);

  // Same results again: four reads, no write.
  AnnotationStats again;
  ASSERT_TRUE(writer.AnnotatePods(pods, &again).ok());
  EXPECT_EQ(again.objects_patched, 0);
  EXPECT_EQ(again.objects_unchanged, 4);
  std::vector<Recorded> second = api.TakeRequests();
  ASSERT_EQ(second.size(), 4u);
  for (const Recorded& q : second) EXPECT_EQ(q.method, "GET");
}

TEST(AnnotationWriterTest, AChangedValueIsTheOnlyKeyPatched) {
  FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/bert-worker-0", {{}, kPyTorchJobOwner, "gpu-node-1", {}});
  api.Add("/api/v1/namespaces/ml/pods/bert-worker-1", {{}, kPyTorchJobOwner, "gpu-node-1", {}});
  api.Add("/api/v1/nodes/gpu-node-1", {});
  api.Add("/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/bert", {});
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  std::vector<PodResult> pods = {
      {"ml", "bert-worker-0", {"training", {}, 0.9571, {}, "dedicated"}},
      {"ml", "bert-worker-1", {"training", {}, 0.88, {}, "dedicated"}},
  };
  AnnotationStats first;
  ASSERT_TRUE(writer.AnnotatePods(pods, &first).ok());
  EXPECT_EQ(first.objects_patched, 4);
  api.TakeRequests();
  // The second worker got busier, still below the first: only its own p95 changes (the
  // node's and the job's aggregate is the busiest worker's, unchanged).
  pods[1].annotations.gpu_util_p95 = 0.90;
  AnnotationStats second;
  ASSERT_TRUE(writer.AnnotatePods(pods, &second).ok());
  EXPECT_EQ(second.objects_read, 4);
  EXPECT_EQ(second.objects_patched, 1);
  EXPECT_EQ(second.objects_unchanged, 3);
  EXPECT_EQ(second.pods_annotated, 2);
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].method + " " + r[0].path, "GET /api/v1/namespaces/ml/pods/bert-worker-0");
  EXPECT_EQ(r[1].method + " " + r[1].path, "GET /api/v1/namespaces/ml/pods/bert-worker-1");
  EXPECT_EQ(r[2].method + " " + r[2].path, "PATCH /api/v1/namespaces/ml/pods/bert-worker-1");
  EXPECT_EQ(r[2].content_type, "application/strategic-merge-patch+json");
  EXPECT_EQ(r[2].authorization, "Bearer test-token");
  EXPECT_EQ(r[2].body, R"({"metadata":{"annotations":{"kraken.io/gpu-util-p95":"0.900"}}})");
  EXPECT_EQ(r[3].method + " " + r[3].path, "GET /api/v1/nodes/gpu-node-1");
  EXPECT_EQ(r[4].method + " " + r[4].path, "GET /apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/bert");
}

TEST(AnnotationWriterTest, OptedOutPodIsReadButNeverPatchedNorAggregated) {
  FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/bert-worker-0",
          {{{"kraken.io/profiling", "Disabled "}, {"kraken.io/gpu-util-p95", "0.100"}},
           kPyTorchJobOwner,
           "gpu-node-1",
           {}});
  api.Add("/api/v1/namespaces/ml/pods/bert-worker-1",
          {{{"kraken.io/profiling", "enabled"}}, kPyTorchJobOwner, "gpu-node-1", {}});
  api.Add("/api/v1/nodes/gpu-node-1", {});
  api.Add("/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/bert", {});
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  std::vector<PodResult> pods = {
      {"ml", "bert-worker-0", {"training", {}, 0.9571, {}, "dedicated"}},
      {"ml", "bert-worker-1", {"training", {}, 0.88, {}, "share"}},
  };
  AnnotationStats stats;
  ASSERT_TRUE(writer.AnnotatePods(pods, &stats).ok());
  EXPECT_EQ(stats.pods_opted_out, 1);
  EXPECT_EQ(stats.pods_annotated, 1);
  EXPECT_EQ(stats.objects_read, 3);
  EXPECT_EQ(stats.objects_patched, 2);
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].method + " " + r[0].path, "GET /api/v1/namespaces/ml/pods/bert-worker-0");
  EXPECT_EQ(r[1].method + " " + r[1].path, "GET /api/v1/namespaces/ml/pods/bert-worker-1");
  EXPECT_EQ(r[2].method + " " + r[2].path, "PATCH /api/v1/namespaces/ml/pods/bert-worker-1");
  const std::string worker1 =
      R"({"metadata":{"annotations":{"kraken.io/colocation-class":"share","kraken.io/gpu-util-p95":"0.880",)"
      R"("kraken.io/workload-type":"training"}}})";
  EXPECT_EQ(r[2].body, worker1);
  // The node's aggregate is worker-1's alone (0.880, share), not the opted-out 0.957.
  EXPECT_EQ(r[3].method + " " + r[3].path, "GET /api/v1/nodes/gpu-node-1");
  EXPECT_EQ(r[4].method + " " + r[4].path, "PATCH /api/v1/nodes/gpu-node-1");
  EXPECT_EQ(r[4].body,
            R"({"metadata":{"annotations":{"kraken.io/colocation-class":"share","kraken.io/gpu-util-p95":"0.880",)"
            R"("kraken.io/resident-demand":"none","kraken.io/workload-type":"training"}}})");
  // One analysed pod left in the PyTorchJob: no job aggregate, no request for it.
}

TEST(AnnotationWriterTest, NodeLabelsAreAStrategicMergeOfTheChangedLabelsOnly) {
  FakeApiServer api;
  FakeObject node;
  node.labels = {{"kubernetes.io/hostname", "gpu-node-1"}, {"kraken.io/gpu-count", "8"}};
  api.Add("/api/v1/nodes/gpu-node-1", node);
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  std::map<std::string, std::map<std::string, std::string>> labels = {
      {"gpu-node-1", NodeGpuLabels("a100-40gb-sxm", 8, {{"1g.5gb", 7}})},
      {"424773df46e0", NodeGpuLabels("t4", 1, {})},  // a Hostname that is no node name
  };
  AnnotationStats stats;
  ASSERT_TRUE(writer.LabelNodes(labels, &stats).ok());
  EXPECT_EQ(stats.nodes_labelled, 1);
  EXPECT_EQ(stats.nodes_missing, 1);
  EXPECT_EQ(stats.objects_patched, 1);
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].method + " " + r[0].path, "GET /api/v1/nodes/424773df46e0");
  EXPECT_EQ(r[1].method + " " + r[1].path, "GET /api/v1/nodes/gpu-node-1");
  EXPECT_EQ(r[2].method + " " + r[2].path, "PATCH /api/v1/nodes/gpu-node-1");
  EXPECT_EQ(r[2].content_type, "application/strategic-merge-patch+json");
  EXPECT_EQ(r[2].authorization, "Bearer test-token");
  // gpu-count already says 8; kubernetes.io/hostname is never touched.
  EXPECT_EQ(r[2].body,
            R"({"metadata":{"labels":{"kraken.io/gpu-class":"a100-40gb-sxm","kraken.io/mig-layout":"1g.5gb-x7"}}})");

  // Unchanged: a GET, no PATCH. Then a new MIG layout: only that label.
  labels.erase("424773df46e0");
  AnnotationStats again;
  ASSERT_TRUE(writer.LabelNodes(labels, &again).ok());
  EXPECT_EQ(again.objects_unchanged, 1);
  r = api.TakeRequests();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].method, "GET");
  labels["gpu-node-1"] = NodeGpuLabels("a100-40gb-sxm", 8, {{"3g.20gb", 8}, {"2g.10gb", 16}});
  AnnotationStats changed;
  ASSERT_TRUE(writer.LabelNodes(labels, &changed).ok());
  r = api.TakeRequests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].method, "PATCH");
  EXPECT_EQ(r[1].body, R"({"metadata":{"labels":{"kraken.io/mig-layout":"3g.20gb-x8.2g.10gb-x16"}}})");
}

// The demand vectors: each pod gets kraken.io/demand; its node the list of its residents
// (pod, GPU index, demand) that the scheduler extender reads.
TEST(AnnotationWriterTest, NodeGetsTheResidentDemandsOfItsPods) {
  FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/etl-0", {{}, "", "gpu-node-2", {}});
  api.Add("/api/v1/namespaces/ml/pods/train-1", {{}, "", "gpu-node-2", {}});
  api.Add("/api/v1/namespaces/ml/pods/idle-2", {{}, "", "gpu-node-2", {}});
  api.Add("/api/v1/nodes/gpu-node-2", {});
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  WorkloadAnnotations etl, train, idle;
  etl.demand = "v1;busy=0.200;dram=0.180;mem-gib=8.0";
  etl.gpu_index = 0;
  train.demand = "v1;type=training;busy=0.700;sm=0.650";
  train.gpu_index = 3;
  idle.gpu_util_p95 = 0;  // no demand vector: not a resident entry
  AnnotationStats stats;
  ASSERT_TRUE(writer.AnnotatePods({{"ml", "etl-0", etl}, {"ml", "train-1", train}, {"ml", "idle-2", idle}}, &stats).ok());
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[1].body, R"({"metadata":{"annotations":{"kraken.io/demand":"v1;busy=0.200;dram=0.180;mem-gib=8.0"}}})");
  EXPECT_EQ(r[6].path, "/api/v1/nodes/gpu-node-2");
  // Busiest first (the order that decides who stays when a node has more than 16).
  EXPECT_EQ(r[7].body,
            R"({"metadata":{"annotations":{"kraken.io/gpu-util-p95":"0.000",)"
            R"("kraken.io/resident-demand":"v1;pod=ml/train-1;gpu=3;type=training;busy=0.700;sm=0.650,)"
            R"(v1;pod=ml/etl-0;gpu=0;busy=0.200;dram=0.180;mem-gib=8.0"}}})");
}

// A pod of the analysed history that no longer exists (deleted within --range) is
// counted and skipped: failing the pass on it would leave every node stale for as long as
// the pod stays in the history.
TEST(AnnotationWriterTest, MissingPodIsCountedAndSkipped) {
  FakeApiServer api;
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  AnnotationStats stats;
  ASSERT_TRUE(writer.AnnotatePods({{"ml", "gone", {"inference", {}, 0.1, {}, {}}}}, &stats).ok());
  EXPECT_EQ(stats.pods_missing, 1);
  EXPECT_EQ(stats.objects_read, 1);
  EXPECT_EQ(stats.pods_annotated, 0);
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].method + " " + r[0].path, "GET /api/v1/namespaces/ml/pods/gone");
}

TEST(AnnotationWriterTest, PathsAndPatchKinds) {
  EXPECT_EQ(ObjectPath({"batch/v1", "Job", "ml", "etl"}), "/apis/batch/v1/namespaces/ml/jobs/etl");
  EXPECT_EQ(ObjectPath({"kubeflow.org/v2beta1", "MPIJob", "ml", "hvd"}),
            "/apis/kubeflow.org/v2beta1/namespaces/ml/mpijobs/hvd");
  EXPECT_TRUE(IsBuiltinKind({"batch/v1", "Job", "ml", "etl"}));
  EXPECT_TRUE(IsBuiltinKind({"v1", "Node", "", "n"}));
  EXPECT_FALSE(IsBuiltinKind({"kubeflow.org/v2beta1", "MPIJob", "ml", "hvd"}));
  // Job aggregates go only where the controller's RBAC lets it patch.
  EXPECT_TRUE(IsAggregatedOwner({"batch/v1", "Job", "ml", "etl"}));
  EXPECT_TRUE(IsAggregatedOwner({"kubeflow.org/v2beta1", "MPIJob", "ml", "hvd"}));
  EXPECT_TRUE(IsAggregatedOwner({"kubeflow.org/v1", "PyTorchJob", "ml", "bert"}));
  EXPECT_FALSE(IsAggregatedOwner({"apps/v1", "StatefulSet", "ml", "db"}));
  EXPECT_FALSE(IsAggregatedOwner({"apps/v1", "ReplicaSet", "ml", "web-7d9f"}));
  EXPECT_FALSE(IsAggregatedOwner({"example.com/v1", "Job", "ml", "x"}));
  EXPECT_TRUE(ProfilingDisabled({{"kraken.io/profiling", " DISABLED"}}));
  EXPECT_FALSE(ProfilingDisabled({{"kraken.io/profiling", "enabled"}}));
  EXPECT_FALSE(ProfilingDisabled({}));  // the default: enabled
}

}  // namespace
}  // namespace kraken::k8s
