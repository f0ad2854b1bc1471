// The extender against request bodies shaped as kube-scheduler sends them: ExtenderArgs
// with the whole Pod and either the NodeList ("nodes", nodeCacheCapable: false) or the
// node names ("nodenames", nodeCacheCapable: true). The bodies are written by hand from
// the documented schema (k8s.io/kube-scheduler/extender/v1 types: pod, nodes, nodenames;
// ExtenderFilterResult nodes/nodenames/failedNodes/error; HostPriority host/score), not
// recorded from a live scheduler (no cluster here).
#include "k8s/extender/scheduler_extender.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <thread>

#include "k8s/extender/extender_server.h"

namespace kraken::k8s {
namespace {

// A pending pod asking for one GPU, with kraken's prediction from an earlier run.
constexpr char kPod[] = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"resnet-infer-7d9c","namespace":"ml","uid":"0b5f2c1e-8d4a-4c3b-9e2f-1a2b3c4d5e6f",
    "annotations":{"kraken.io/gpu-util-p95":"0.300","kraken.io/bound":"memory","kraken.io/colocation-class":"share",
                   "kraken.io/profiling":"enabled"}},
  "spec":{"schedulerName":"default-scheduler","containers":[{"name":"server","image":"triton:24.01",
    "resources":{"limits":{"nvidia.com/gpu":"1"},"requests":{"nvidia.com/gpu":"1"}}}]},
  "status":{"phase":"Pending","qosClass":"BestEffort"}})";

std::string Node(const std::string& name, const std::string& annotations) {
  return R"({"metadata":{"name":")" + name + R"(","labels":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-40GB"},)" +
         R"("annotations":{)" + annotations + R"(}},"status":{"capacity":{"nvidia.com/gpu":"8"}}})";
}

std::string ArgsWithNodes() {
  return std::string(R"({"pod":)") + kPod + R"(,"nodes":{"metadata":{},"items":[)" +
         Node("gpu-a", R"("kraken.io/gpu-util-p95":"0.500","kraken.io/bound":"compute")") + "," +  // complementary
         Node("gpu-b", R"("kraken.io/gpu-util-p95":"0.400","kraken.io/bound":"memory")") + "," +   // same class
         Node("gpu-c", R"("kraken.io/gpu-util-p95":"0.800","kraken.io/bound":"compute")") + "," +  // 0.8 + 0.3 > 1
         Node("gpu-d", "") + "]}}";                                                                // no data
}

TEST(SchedulerExtenderTest, ParsesPodAndNodeList) {
  auto request = ParseExtenderArgs(ArgsWithNodes());
  ASSERT_TRUE(request.ok()) << request.status().message();
  EXPECT_EQ(request->pod_name, "resnet-infer-7d9c");
  EXPECT_EQ(request->pod_namespace, "ml");
  EXPECT_DOUBLE_EQ(*request->pod.gpu_util_p95, 0.3);
  EXPECT_EQ(request->pod.bound, "memory");
  ASSERT_EQ(request->nodes.size(), 4u);
  EXPECT_FALSE(request->by_name);
  EXPECT_EQ(request->nodes[2].name, "gpu-c");
  EXPECT_DOUBLE_EQ(*request->nodes[2].hint.gpu_util_p95, 0.8);
  EXPECT_FALSE(request->nodes[3].hint.gpu_util_p95.has_value());
}

TEST(SchedulerExtenderTest, FilterAndPrioritizeRankComplementaryFullerNodesFirst) {
  auto request = ParseExtenderArgs(ArgsWithNodes());
  ASSERT_TRUE(request.ok());
  std::vector<NodeDecision> d = DecideNodes(*request);
  ASSERT_EQ(d.size(), 4u);
  // gpu-a: memory + compute share well (class table 0.95): 100 x (0.5 x 0.95 + 0.5 x 0.8) = 87.5 -> 88.
  EXPECT_TRUE(d[0].fits);
  EXPECT_NEAR(d[0].interference, 0.05, 1e-12);
  EXPECT_EQ(d[0].score, 88);
  // gpu-b: memory + memory (0.15): 100 x (0.5 x 0.15 + 0.5 x 0.7) = 42.5 -> 43 (llround).
  EXPECT_EQ(d[1].score, 43);
  // gpu-c: 80 % + 30 % does not fit.
  EXPECT_FALSE(d[2].fits);
  // The pod has the older annotations but no kraken.io/demand: the class table, said so.
  EXPECT_EQ(d[2].reason, "class table (pod has no kraken.io/demand): GPU p95 would reach 110.0% (node 80.0% + pod 30.0%)");
  EXPECT_EQ(d[0].reason, "class table (pod has no kraken.io/demand): score = 100 x (0.5 x (1 - 0.05) + 0.5 x 0.800) = 88");
  EXPECT_EQ(d[2].score, 0);
  // gpu-d: no annotations, assumed idle: 100 x (0.5 x 1 + 0.5 x 0.3) = 65.
  EXPECT_EQ(d[3].score, 65);
  EXPECT_EQ(PrioritizeResponseJson(d),
            R"([{"host":"gpu-a","score":88},{"host":"gpu-b","score":43},{"host":"gpu-c","score":0},)"
            R"({"host":"gpu-d","score":65}])");
  std::string filtered = FilterResponseJson(*request, d);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(filtered);
  simdjson::dom::array items = doc["nodes"]["items"].get_array();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(std::string_view(items.at(2)["metadata"]["name"]), "gpu-d");
  EXPECT_EQ(std::string_view(items.at(0)["status"]["capacity"]["nvidia.com/gpu"]), "8");  // node echoed whole
  EXPECT_EQ(std::string_view(doc["failedNodes"]["gpu-c"]),
            "class table (pod has no kraken.io/demand): GPU p95 would reach 110.0% (node 80.0% + pod 30.0%)");
  EXPECT_EQ(std::string_view(doc["error"]), "");
}

TEST(SchedulerExtenderTest, NodeNamesAndDedicatedPodsOverHttp) {
  httplib::Server server;
  AddExtenderRoutes(server, "/kraken");
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  httplib::Client client("127.0.0.1", port);
  std::string pod = kPod;
  pod.replace(pod.find("\"share\""), 7, "\"dedicated\"");
  std::string args = R"({"pod":)" + pod + R"(,"nodes":null,"nodenames":["gpu-a","gpu-e"]})";
  auto filter = client.Post("/kraken/filter", args, "application/json");
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->status, 200);
  // Names only (nodeCacheCapable): no annotations are known, both pass.
  EXPECT_EQ(filter->body, R"({"nodenames":["gpu-a","gpu-e"],"failedNodes":{},"error":""})");
  auto prioritize = client.Post("/kraken/prioritize", args, "application/json");
  ASSERT_TRUE(prioritize);
  EXPECT_EQ(prioritize->body, R"([{"host":"gpu-a","score":65},{"host":"gpu-e","score":65}])");
  auto bad = client.Post("/kraken/filter", "{\"nodes\":[]}", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  // Dedicated pod against a busy annotated node.
  std::string busy = R"({"pod":)" + pod + R"(,"nodes":{"items":[)" +
                     Node("gpu-a", R"("kraken.io/gpu-util-p95":"0.200","kraken.io/bound":"compute")") + "]}}";
  auto refused = client.Post("/kraken/filter", busy, "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(
      refused->body,
      R"({"nodes":{"items":[]},"failedNodes":{"gpu-a":"class table (pod has no kraken.io/demand): pod wants a dedicated )"
      R"(GPU; node GPU p95 20.0%"},"error":""})");
  // A pod with a demand vector against node names only: no node data, all neutral.
  std::string demand_pod = kPod;
  demand_pod.replace(demand_pod.find("\"kraken.io/profiling\""), 0, R"("kraken.io/demand":"v1;busy=0.400;mem-gib=6.0",)");
  std::string by_name = R"({"pod":)" + demand_pod + R"(,"nodenames":["gpu-a","gpu-e"]})";
  prioritize = client.Post("/kraken/prioritize", by_name, "application/json");
  ASSERT_TRUE(prioritize);
  EXPECT_EQ(prioritize->body, R"([{"host":"gpu-a","score":50},{"host":"gpu-e","score":50}])");
  // The debug verb gives the reasons the protocol replies cannot carry.
  auto explain = client.Post("/kraken/explain", by_name, "application/json");
  ASSERT_TRUE(explain);
  EXPECT_EQ(explain->body,
            R"({"pod":"ml/resnet-infer-7d9c","nodes":[{"host":"gpu-a","fits":true,"score":50,"basis":"no data",)"
            R"("reason":"no kraken.io/resident-demand on the node: passes with the neutral score 50"},)"
            R"({"host":"gpu-e","fits":true,"score":50,"basis":"no data",)"
            R"("reason":"no kraken.io/resident-demand on the node: passes with the neutral score 50"}]})");
  server.stop();
  thread.join();
}

TEST(SchedulerExtenderTest, DecisionLogKeepsTheReplyProtocolExact) {
  httplib::Server server;
  std::vector<std::string> log;
  ExtenderServerOptions options;
  options.decide.max_slowdown = 1.4;
  options.log = [&](const std::string& verb, const std::string& json) { log.push_back(verb + " " + json); };
  AddExtenderRoutes(server, options);
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  httplib::Client client("127.0.0.1", port);
  std::string pod = kPod;
  pod.replace(pod.find("\"kraken.io/profiling\""), 0, R"("kraken.io/demand":"v1;busy=0.500;sm=0.450;mem-gib=10.0",)");
  std::string node = R"({"metadata":{"name":"gpu-a","labels":{"nvidia.com/gpu.count":"1","nvidia.com/gpu.replicas":"2",)"
                     R"("kraken.io/gpu-class":"h100-sxm"},"annotations":{"kraken.io/resident-demand":)"
                     R"("v1;pod=ml/x;gpu=0;busy=0.950;mem-gib=20.0"}}})";
  auto reply = client.Post("/filter", R"({"pod":)" + pod + R"(,"nodes":{"items":[)" + node + "]}}", "application/json");
  ASSERT_TRUE(reply);
  server.stop();
  thread.join();
  // Time-slicing with a resident busy 95 %: about x1.49 for the pod -> refused at 1.4.
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(reply->body);
  EXPECT_EQ(doc["nodes"]["items"].get_array().size(), 0u);
  std::string_view reason = doc["failedNodes"]["gpu-a"];
  EXPECT_NE(reason.find("device h100-sxm (label kraken.io/gpu-class)"), std::string_view::npos) << reason;
  EXPECT_NE(reason.find("above --max-slowdown 1.40"), std::string_view::npos) << reason;
  ASSERT_EQ(log.size(), 1u) << reply->body;
  EXPECT_EQ(log[0].rfind(R"(filter {"pod":"ml/resnet-infer-7d9c","nodes":[{"host":"gpu-a","fits":false,"score":0,)", 0),
            0u)
      << log[0];
}

// The hardened server ServeExtender runs: compressed, chunked and oversized bodies are
// refused before they are read; a normal filter call still answers.
TEST(SchedulerExtenderTest, HardenedServerRefusesAbusiveBodies) {
  httplib::Server server;
  HardenExtenderServer(server, "127.0.0.1");
  AddExtenderRoutes(server, "/kraken");
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  httplib::Client client("127.0.0.1", port);
  auto gzip = client.Post("/kraken/filter", {{"Content-Encoding", "gzip"}}, "x", "application/json");
  ASSERT_TRUE(gzip);
  EXPECT_EQ(gzip->status, 415) << gzip->body;
  EXPECT_NE(gzip->body.find("Content-Encoding"), std::string::npos) << gzip->body;
  // Announced bigger than the limit: 413 before the body is read.
  httplib::Headers big = {{"Content-Length", std::to_string(kMaxExtenderBodyBytes + 1)}};
  auto huge = client.Get("/kraken/healthz", big);
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413) << huge->body;
  // Chunked (a content provider without a length).
  auto chunked = client.Post(
      "/kraken/filter",
      [](size_t, httplib::DataSink& sink) {
        sink.write("{}", 2);
        sink.done();
        return true;
      },
      "application/json");
  ASSERT_TRUE(chunked);
  EXPECT_EQ(chunked->status, 411) << chunked->body;
  auto ok = client.Post("/kraken/filter", R"({"pod":)" + std::string(kPod) + R"(,"nodenames":["gpu-a"]})",
                        "application/json");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  server.stop();
  thread.join();
}

}  // namespace
}  // namespace kraken::k8s
