// Contract tests of the annotation writer against a loopback HTTP server that plays the
// API server: it records every request (verb, path, Content-Type, Authorization, body),
// serves the objects and applies the patches, so the second run shows that unchanged
// values are not written again. Object shapes follow the Kubernetes API reference (Pod
// metadata.ownerReferences with controller: true, spec.nodeName); the PyTorchJob is a
// kubeflow.org/v1 custom resource.
#include "k8s/annotation_writer.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "base/json_writer.h"
#include "k8s/demand_annotation.h"
#include "k8s/node_labels.h"

namespace kraken::k8s {
namespace {

struct Recorded {
  std::string method, path, content_type, authorization, body;
};

struct FakeObject {
  std::map<std::string, std::string> annotations;
  std::string owner_json;  // the ownerReferences array, or ""
  std::string node_name;
  std::map<std::string, std::string> labels;
};

class FakeApiServer {
 public:
  FakeApiServer() {
    auto get = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(
          {"GET", req.path, req.get_header_value("Content-Type"), req.get_header_value("Authorization"), req.body});
      auto it = objects_.find(req.path);
      if (it == objects_.end()) {
        res.status = 404;
        res.set_content(R"({"kind":"Status","reason":"NotFound"})", "application/json");
        return;
      }
      res.set_content(Render(it->second), "application/json");
    };
    auto patch = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(
          {"PATCH", req.path, req.get_header_value("Content-Type"), req.get_header_value("Authorization"), req.body});
      auto it = objects_.find(req.path);
      auto meta = ParseObjectMeta(req.body, "");
      if (it == objects_.end() || !meta.ok()) {
        res.status = 422;
        return;
      }
      for (const auto& [k, v] : meta->annotations) it->second.annotations[k] = v;
      for (const auto& [k, v] : meta->labels) it->second.labels[k] = v;
      res.set_content(Render(it->second), "application/json");
    };
    server_.Get(".*", get);
    server_.Patch(".*", patch);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeApiServer() {
    server_.stop();
    thread_.join();
  }

  void Add(const std::string& path, FakeObject object) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_[path] = std::move(object);
  }
  // The pod was recreated on another node (a StatefulSet pod keeps its name).
  void MoveTo(const std::string& path, const std::string& node) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_[path].node_name = node;
  }
  std::string Annotation(const std::string& path, const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = objects_[path].annotations.find(key);
    return it == objects_[path].annotations.end() ? "<unset>" : it->second;
  }
  std::vector<Recorded> TakeRequests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(requests_);
  }
  KubeConfig Config() const {
    KubeConfig c;
    c.scheme = "http";
    c.host = "127.0.0.1";
    c.port = port_;
    c.token = "test-token";
    return c;
  }

 private:
  static std::string RenderMap(const std::map<std::string, std::string>& map) {
    std::string text = "{";
    for (const auto& [k, v] : map) {
      if (text.size() > 1) text += ',';
      text += "\"" + k + "\":\"" + v + "\"";
    }
    return text + "}";
  }
  static std::string Render(const FakeObject& o) {
    std::string json = R"({"apiVersion":"v1","metadata":{"annotations":)" + RenderMap(o.annotations);
    if (!o.labels.empty()) json += R"(,"labels":)" + RenderMap(o.labels);
    if (!o.owner_json.empty()) json += R"(,"ownerReferences":)" + o.owner_json;
    json += "}";
    if (!o.node_name.empty()) json += R"(,"spec":{"nodeName":")" + o.node_name + "\"}";
    return json + "}";
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<Recorded> requests_;
  std::map<std::string, FakeObject> objects_;
};

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

// Resident lists over time (docs/kubernetes.md, "Controller"): a pass rewrites the
// entries of the namespaces it analysed on every node it touches, and only those.
std::string Brief(const Recorded& q) { return q.method + " " + q.path; }

TEST(AnnotationWriterTest, PodMovedFromNodeAToNodeBLeavesAAndJoinsB) {
  FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/train-0", {{}, "", "node-a", {}});
  api.Add("/api/v1/nodes/node-a", {});
  api.Add("/api/v1/nodes/node-b", {});
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  WorkloadAnnotations train;
  train.workload_type = "training";
  train.demand = "v1;type=training;busy=0.700;sm=0.650";
  train.gpu_index = 1;
  PassScope scope;
  scope.namespaces = {"ml"};
  scope.inventory_nodes = {"node-a", "node-b"};
  const std::string entry = "v1;pod=ml/train-0;gpu=1;type=training;busy=0.700;sm=0.650";

  AnnotationStats first;
  ASSERT_TRUE(writer.AnnotatePass({{"ml", "train-0", train}}, scope, &first).ok());
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(Brief(r[0]), "GET /api/v1/namespaces/ml/pods/train-0");
  EXPECT_EQ(Brief(r[1]), "PATCH /api/v1/namespaces/ml/pods/train-0");
  EXPECT_EQ(Brief(r[2]), "GET /api/v1/nodes/node-a");
  EXPECT_EQ(Brief(r[3]), "PATCH /api/v1/nodes/node-a");
  EXPECT_EQ(r[3].body, R"({"metadata":{"annotations":{"kraken.io/resident-demand":")" + entry +
                           R"(","kraken.io/workload-type":"training"}}})");
  // node-b is in the GPU inventory, no analysed pod runs there: kraken looked, `none`.
  EXPECT_EQ(Brief(r[4]), "GET /api/v1/nodes/node-b");
  EXPECT_EQ(Brief(r[5]), "PATCH /api/v1/nodes/node-b");
  EXPECT_EQ(r[5].body, R"({"metadata":{"annotations":{"kraken.io/resident-demand":"none"}}})");
  for (const Recorded& q : r) EXPECT_EQ(q.authorization, "Bearer test-token") << q.path;
  for (size_t i : {1, 3, 5}) EXPECT_EQ(r[i].content_type, "application/strategic-merge-patch+json");

  // Recreated on node-b with the same figures: the pod itself is unchanged; node-a's
  // list loses the entry and, empty, becomes `none`; node-b gains it. Only the changed
  // key is in each patch (node-a's other annotations are left as they are).
  api.MoveTo("/api/v1/namespaces/ml/pods/train-0", "node-b");
  AnnotationStats moved;
  ASSERT_TRUE(writer.AnnotatePass({{"ml", "train-0", train}}, scope, &moved).ok());
  EXPECT_EQ(moved.resident_entries_stale, 1);
  EXPECT_EQ(moved.objects_read, 3);
  EXPECT_EQ(moved.objects_patched, 2);
  r = api.TakeRequests();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(Brief(r[0]), "GET /api/v1/namespaces/ml/pods/train-0");
  EXPECT_EQ(Brief(r[1]), "GET /api/v1/nodes/node-a");
  EXPECT_EQ(Brief(r[2]), "PATCH /api/v1/nodes/node-a");
  EXPECT_EQ(r[2].content_type, "application/strategic-merge-patch+json");
  EXPECT_EQ(r[2].authorization, "Bearer test-token");
  EXPECT_EQ(r[2].body, R"({"metadata":{"annotations":{"kraken.io/resident-demand":"none"}}})");
  EXPECT_EQ(Brief(r[3]), "GET /api/v1/nodes/node-b");
  EXPECT_EQ(Brief(r[4]), "PATCH /api/v1/nodes/node-b");
  EXPECT_EQ(r[4].body, R"({"metadata":{"annotations":{"kraken.io/resident-demand":")" + entry +
                           R"(","kraken.io/workload-type":"training"}}})");
  EXPECT_EQ(api.Annotation("/api/v1/nodes/node-a", kResidentDemandKey), "none");

  // The same pass again: GETs only.
  AnnotationStats again;
  ASSERT_TRUE(writer.AnnotatePass({{"ml", "train-0", train}}, scope, &again).ok());
  EXPECT_EQ(again.objects_patched, 0);
  EXPECT_EQ(again.objects_unchanged, 3);
  EXPECT_EQ(again.resident_entries_stale, 0);
  r = api.TakeRequests();
  ASSERT_EQ(r.size(), 3u);
  for (const Recorded& q : r) EXPECT_EQ(q.method, "GET") << q.path;
}

TEST(AnnotationWriterTest, OtherNamespacesSurviveStaleInventoryNodeBecomesNone) {
  FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/train-0", {{}, "", "node-a", {}});
  // node-a: another controller's research entries (one of a version this reader does not
  // know), an ml pod that left and an ml entry with a ratio above 1.
  const std::string research = "v1;pod=research/r-0;gpu=0;busy=0.300";
  const std::string research_v2 = "v2;pod=research/r-9;busy=0.9";
  api.Add("/api/v1/nodes/node-a",
          {{{kResidentDemandKey, research + "," + research_v2 + ",v1;pod=ml/old-0;gpu=1;busy=0.500,v1;pod=ml/bad;busy=2"},
            {"team", "infra"}},
           "",
           "",
           {}});
  // node-c: in the inventory, no analysed pod, a stale ml entry. node-d: only research.
  api.Add("/api/v1/nodes/node-c", {{{kResidentDemandKey, "v1;pod=ml/etl-9;gpu=0;busy=0.400"}}, "", "", {}});
  api.Add("/api/v1/nodes/node-d", {{{kResidentDemandKey, "v1;pod=research/r-1;gpu=0;busy=0.250"}}, "", "", {}});
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  WorkloadAnnotations train;
  train.demand = "v1;busy=0.700";
  train.gpu_index = 1;
  PassScope scope;
  scope.namespaces = {"ml"};
  scope.inventory_nodes = {"node-a", "node-c", "node-d", "node-e"};  // node-e: no such Node
  scope.node_labels["node-d"] = {{"kraken.io/gpu-count", "1"}};
  AnnotationStats stats;
  ASSERT_TRUE(writer.AnnotatePass({{"ml", "train-0", train}}, scope, &stats).ok());
  EXPECT_EQ(stats.resident_entries_stale, 2);       // ml/old-0 on node-a, ml/etl-9 on node-c
  EXPECT_EQ(stats.resident_entries_unparsable, 1);  // ml/bad
  EXPECT_EQ(stats.nodes_missing, 1);
  EXPECT_EQ(stats.nodes_labelled, 1);
  EXPECT_EQ(stats.objects_read, 5);
  EXPECT_EQ(stats.objects_patched, 4);  // the pod, node-a, node-c, node-d (labels)
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 9u);
  EXPECT_EQ(Brief(r[2]), "GET /api/v1/nodes/node-a");
  EXPECT_EQ(Brief(r[3]), "PATCH /api/v1/nodes/node-a");
  // The research entries are kept as they were (the v2 one too: not ours to judge), the
  // ml ones replaced by the pass's pods; busiest first, the unreadable v2 last.
  EXPECT_EQ(r[3].body, R"({"metadata":{"annotations":{"kraken.io/resident-demand":"v1;pod=ml/train-0;gpu=1;busy=0.700,)" +
                           research + "," + research_v2 + R"("}}})");
  EXPECT_EQ(Brief(r[4]), "GET /api/v1/nodes/node-c");
  EXPECT_EQ(Brief(r[5]), "PATCH /api/v1/nodes/node-c");
  EXPECT_EQ(r[5].body, R"({"metadata":{"annotations":{"kraken.io/resident-demand":"none"}}})");
  // node-d's list is another namespace's alone: untouched; its label is its own patch.
  EXPECT_EQ(Brief(r[6]), "GET /api/v1/nodes/node-d");
  EXPECT_EQ(Brief(r[7]), "PATCH /api/v1/nodes/node-d");
  EXPECT_EQ(r[7].body, R"({"metadata":{"labels":{"kraken.io/gpu-count":"1"}}})");
  EXPECT_EQ(r[7].content_type, "application/strategic-merge-patch+json");
  EXPECT_EQ(Brief(r[8]), "GET /api/v1/nodes/node-e");
  EXPECT_EQ(api.Annotation("/api/v1/nodes/node-d", kResidentDemandKey), "v1;pod=research/r-1;gpu=0;busy=0.250");
  EXPECT_EQ(api.Annotation("/api/v1/nodes/node-a", "team"), "infra");

  // A pass over research now: node-a keeps the ml entry, its research entries are
  // rewritten (r-0 left, the v2 one is dropped as unparsable), node-d's r-1 left too.
  PassScope research_scope;
  research_scope.namespaces = {"research"};
  research_scope.inventory_nodes = {"node-a", "node-d"};
  AnnotationStats other;
  ASSERT_TRUE(writer.AnnotatePass({}, research_scope, &other).ok());
  EXPECT_EQ(other.resident_entries_stale, 2);
  EXPECT_EQ(other.resident_entries_unparsable, 1);
  EXPECT_EQ(api.Annotation("/api/v1/nodes/node-a", kResidentDemandKey), "v1;pod=ml/train-0;gpu=1;busy=0.700");
  EXPECT_EQ(api.Annotation("/api/v1/nodes/node-d", kResidentDemandKey), "none");
  api.TakeRequests();
}

// A node not touched by the pass (not in the inventory, no analysed pod) is left alone,
// whatever stale entries of the analysed namespace it carries; an opted-out pod's node is
// touched, so an entry it had before opting out leaves.
TEST(AnnotationWriterTest, UntouchedNodeIsLeftAloneOptedOutPodLeavesItsNodeList) {
  FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/private-0", {{{"kraken.io/profiling", "disabled"}}, "", "node-p", {}});
  api.Add("/api/v1/nodes/node-p", {{{kResidentDemandKey, "v1;pod=ml/private-0;gpu=0;busy=0.800"}}, "", "", {}});
  api.Add("/api/v1/nodes/node-z", {{{kResidentDemandKey, "v1;pod=ml/etl-9;gpu=0;busy=0.400"}}, "", "", {}});
  KubeClient client(api.Config());
  AnnotationWriter writer(client);
  WorkloadAnnotations priv;
  priv.demand = "v1;busy=0.800";
  priv.gpu_index = 0;
  PassScope scope;
  scope.namespaces = {"ml"};
  AnnotationStats stats;
  ASSERT_TRUE(writer.AnnotatePass({{"ml", "private-0", priv}}, scope, &stats).ok());
  EXPECT_EQ(stats.pods_opted_out, 1);
  std::vector<Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(Brief(r[0]), "GET /api/v1/namespaces/ml/pods/private-0");
  EXPECT_EQ(Brief(r[1]), "GET /api/v1/nodes/node-p");
  EXPECT_EQ(Brief(r[2]), "PATCH /api/v1/nodes/node-p");
  EXPECT_EQ(r[2].body, R"({"metadata":{"annotations":{"kraken.io/resident-demand":"none"}}})");
  EXPECT_EQ(api.Annotation("/api/v1/nodes/node-z", kResidentDemandKey), "v1;pod=ml/etl-9;gpu=0;busy=0.400");
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
