// Contract tests of the node resident lists over time (k8s/controller/resident_list.h,
// AnnotationWriter::AnnotatePass) against the loopback API server: a pass rewrites the
// entries of the namespaces it analysed on every node it touches, and only those
// (docs/k8s-controller.md, "Controller").
#include <gtest/gtest.h>

#include "k8s/controller/annotation_writer.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/client/fake_api_server.h"

namespace kraken::k8s {
namespace {

using testing::FakeApiServer;
using testing::Recorded;

std::string Brief(const Recorded& q) { return q.method + " " + q.path; }

TEST(AnnotationWriterResidentsTest, PodMovedFromNodeAToNodeBLeavesAAndJoinsB) {
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

TEST(AnnotationWriterResidentsTest, OtherNamespacesSurviveStaleInventoryNodeBecomesNone) {
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
TEST(AnnotationWriterResidentsTest, UntouchedNodeIsLeftAloneOptedOutPodLeavesItsNodeList) {
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

}  // namespace
}  // namespace kraken::k8s
