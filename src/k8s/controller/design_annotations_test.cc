// The KRAKEN design's pod annotations (kraken.keti.ai/*) read as kraken.io/* ones, and the
// results also written under Alnair's prefix (ai.centaurus.io), against the loopback API
// servers the other k8s tests use.
#include <gtest/gtest.h>

#include "k8s/controller/annotation_writer.h"
#include "k8s/client/annotations.h"
#include "k8s/client/fake_api_server.h"
#include "k8s/client/fake_pod_api.h"
#include "k8s/attribution/node_pods.h"

namespace kraken::k8s {
namespace {

TEST(DesignAnnotationsTest, TheAgentsPodListKeepsTheDesignsKeys) {
  testing::FakePodApi api;
  api.SetPods("gpu-node-3", {{"ml", "training-job",
                              {{"kraken.keti.ai/profiling", "disabled"},
                               {"kraken.keti.ai/profile-interval", "100ms"},
                               {"kraken.keti.ai/metrics", "gpu,memory,network"},
                               {"kraken.keti.ai/export-format", "json"},
                               {"keti.ai/other", "x"}}}});
  KubeClient client(api.Config());
  auto pods = ListNodePods(client, "gpu-node-3");
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  ASSERT_EQ(pods->size(), 1u);
  const auto& annotations = (*pods)[0].annotations;
  EXPECT_EQ(annotations.size(), 4u);  // not keti.ai/other
  EXPECT_TRUE(ProfilingDisabled(annotations));
  auto interval = FindPodSetting(annotations, kProfileIntervalKey);
  ASSERT_TRUE(interval.has_value());
  EXPECT_EQ(interval->key, "kraken.keti.ai/profile-interval");
  EXPECT_EQ(interval->value, "100ms");
  EXPECT_EQ(FindPodSetting(annotations, kMetricsKey)->value, "gpu,memory,network");
  EXPECT_EQ(FindPodSetting(annotations, kExportFormatKey)->value, "json");
}

TEST(DesignAnnotationsTest, KrakensOwnSpellingWinsOverTheDesigns) {
  std::map<std::string, std::string> both = {{"kraken.io/profiling", "enabled"},
                                             {"kraken.keti.ai/profiling", "disabled"}};
  EXPECT_FALSE(ProfilingDisabled(both));
  EXPECT_EQ(FindPodSetting(both, kProfilingKey)->key, "kraken.io/profiling");
  EXPECT_FALSE(FindPodSetting({}, kProfilingKey).has_value());
  EXPECT_TRUE(ProfilingDisabled({{"kraken.keti.ai/profiling", " Disabled"}}));
}

TEST(DesignAnnotationsTest, PrefixesAreDnsSubdomainsAndCopyEveryResultKey) {
  EXPECT_TRUE(IsAnnotationPrefix("ai.centaurus.io"));
  EXPECT_TRUE(IsAnnotationPrefix("kraken.io"));
  for (const char* bad : {"", "AI.centaurus.io", "ai..io", "-ai.io", "ai.io/", "ai io"}) EXPECT_FALSE(IsAnnotationPrefix(bad)) << bad;
  std::map<std::string, std::string> results = {{"kraken.io/workload-type", "training"}, {"team", "nlp"}};
  EXPECT_EQ(WithPrefixes(results, {"ai.centaurus.io", "kraken.io"}),
            (std::map<std::string, std::string>{{"ai.centaurus.io/workload-type", "training"},
                                                {"kraken.io/workload-type", "training"},
                                                {"team", "nlp"}}));
  EXPECT_EQ(WithPrefixes(results, {}), results);
}

TEST(DesignAnnotationsTest, ResultsAreAlsoWrittenUnderAlnairsPrefix) {
  testing::FakeApiServer api;
  api.Add("/api/v1/namespaces/ml/pods/resnet-0", {{}, "", "gpu-node-1", {}});
  // Opted out the design's way: read, never patched.
  api.Add("/api/v1/namespaces/ml/pods/bert-0", {{{"kraken.keti.ai/profiling", "disabled"}}, "", "gpu-node-1", {}});
  api.Add("/api/v1/nodes/gpu-node-1", {});
  KubeClient client(api.Config());
  AnnotationWriter writer(client, {"ai.centaurus.io"});
  std::vector<PodResult> pods = {{"ml", "resnet-0", {"training", {}, 0.72, {}, "share"}},
                                 {"ml", "bert-0", {"inference", {}, 0.31, {}, "share"}}};
  AnnotationStats stats;
  ASSERT_TRUE(writer.AnnotatePods(pods, &stats).ok());
  EXPECT_EQ(stats.pods_annotated, 1);
  EXPECT_EQ(stats.pods_opted_out, 1);
  std::vector<testing::Recorded> r = api.TakeRequests();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[1].method + " " + r[1].path, "PATCH /api/v1/namespaces/ml/pods/resnet-0");
  EXPECT_EQ(r[1].body,
            R"({"metadata":{"annotations":{"ai.centaurus.io/colocation-class":"share",)"
            R"("ai.centaurus.io/gpu-util-p95":"0.720","ai.centaurus.io/workload-type":"training",)"
            R"("kraken.io/colocation-class":"share","kraken.io/gpu-util-p95":"0.720",)"
            R"("kraken.io/workload-type":"training"}}})");
  EXPECT_EQ(r[2].method + " " + r[2].path, "GET /api/v1/namespaces/ml/pods/bert-0");
  // The node's aggregate under both prefixes; its resident list is kraken's bookkeeping alone.
  EXPECT_EQ(r[4].method + " " + r[4].path, "PATCH /api/v1/nodes/gpu-node-1");
  EXPECT_EQ(r[4].body,
            R"({"metadata":{"annotations":{"ai.centaurus.io/colocation-class":"share",)"
            R"("ai.centaurus.io/gpu-util-p95":"0.720","ai.centaurus.io/workload-type":"training",)"
            R"("kraken.io/colocation-class":"share","kraken.io/gpu-util-p95":"0.720",)"
            R"("kraken.io/resident-demand":"none","kraken.io/workload-type":"training"}}})");

  // The same pass again: every value is there under both prefixes, nothing is written.
  AnnotationStats again;
  ASSERT_TRUE(writer.AnnotatePods(pods, &again).ok());
  EXPECT_EQ(again.objects_patched, 0);
}

}  // namespace
}  // namespace kraken::k8s
