// The agent's pod LIST against a loopback API server (fake_pod_api.h): the exact request
// (path, fieldSelector, Bearer token) and the kraken.io/* annotations read from a PodList
// shaped like the API server's (other annotations, labels, spec and status are skipped).
#include "k8s/attribution/node_pods.h"

#include <gtest/gtest.h>

#include "k8s/controller/annotation_writer.h"
#include "k8s/client/fake_pod_api.h"

namespace kraken::k8s {
namespace {

TEST(NodePodsTest, ListsThePodsOfTheNodeWithTheirKrakenAnnotations) {
  testing::FakePodApi api;
  api.SetPods("gpu-node-7", {{"ml", "trainer-0", {{"kraken.io/profiling", " Disabled "}, {"team", "nlp"}}},
                             {"serving", "vllm-1", {{"kraken.io/profile-interval", "1s"}}},
                             {"kube-system", "coredns", {}}});
  KubeClient client(api.Config());
  auto pods = ListNodePods(client, "gpu-node-7");
  ASSERT_TRUE(pods.ok()) << pods.status().message();

  std::vector<testing::FakePodApiRequest> requests = api.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-node-7");
  EXPECT_EQ(requests[0].path, "/api/v1/pods");
  EXPECT_EQ(requests[0].field_selector, "spec.nodeName=gpu-node-7");
  EXPECT_EQ(requests[0].authorization, "Bearer test-token");

  ASSERT_EQ(pods->size(), 3u);
  EXPECT_EQ((*pods)[0].namespace_name, "ml");
  EXPECT_EQ((*pods)[0].name, "trainer-0");
  // Only kraken.io/ keys are kept: not "team", not kubectl's last-applied-configuration.
  EXPECT_EQ((*pods)[0].annotations, (std::map<std::string, std::string>{{"kraken.io/profiling", " Disabled "}}));
  EXPECT_TRUE(ProfilingDisabled((*pods)[0].annotations));
  EXPECT_EQ((*pods)[1].namespace_name, "serving");
  EXPECT_EQ((*pods)[1].name, "vllm-1");
  EXPECT_EQ((*pods)[1].annotations, (std::map<std::string, std::string>{{"kraken.io/profile-interval", "1s"}}));
  EXPECT_EQ((*pods)[2].name, "coredns");
  EXPECT_TRUE((*pods)[2].annotations.empty());
  EXPECT_EQ((*pods)[2].uid, "8f4c");  // metadata.uid, what the /proc cgroup fallback names
}

TEST(NodePodsTest, AnswersOtherThan200AreErrorsAndBadListsAreInvalid) {
  testing::FakePodApi api;
  api.Fail(403);
  KubeClient client(api.Config());
  auto forbidden = ListNodePods(client, "n1");
  ASSERT_FALSE(forbidden.ok());
  EXPECT_NE(forbidden.status().message().find("HTTP 403"), std::string::npos) << forbidden.status().message();

  EXPECT_FALSE(ParsePodList("[1,2]").ok());
  EXPECT_FALSE(ParsePodList(R"({"items":[{"metadata":{"name":7}}]})").ok());
  // A broken token after "items": an error, never a simdjson exception (found by
  // kraken_k8s_objects_fuzzer).
  auto broken = ParsePodList(R"({"kind":"x","items":null"metadata":{}})");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("items"), std::string::npos) << broken.status().message();
  auto empty = ParsePodList(R"({"kind":"PodList","items":null})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  auto unnamed = ParsePodList(R"({"items":[{"metadata":{"namespace":"a"}},{"metadata":{"name":"p"}}]})");
  ASSERT_TRUE(unnamed.ok());
  ASSERT_EQ(unnamed->size(), 1u);
  EXPECT_EQ((*unnamed)[0].name, "p");
}

}  // namespace
}  // namespace kraken::k8s
