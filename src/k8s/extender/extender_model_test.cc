// The extender's co-location path against ExtenderArgs as kube-scheduler sends them (the
// documented k8s.io/kube-scheduler/extender/v1 schema; the Node objects carry the labels
// NVIDIA's GPU feature discovery sets and the annotations `kraken annotate` writes).
// Bodies written by hand, not recorded from a live scheduler (no cluster here).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <limits>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/workload_inputs.h"
#include "k8s/client/demand_annotation.h"
#include "k8s/extender/extender_model.h"
#include "k8s/extender/scheduler_extender.h"
#include "model/device_catalog.h"

namespace kraken::k8s {
namespace {

// A fine-tuning job asking for one GPU share, with the demand kraken measured earlier.
constexpr char kPodDemand[] = "v1;type=training;busy=0.500;sm=0.450;dram=0.150;mem-gib=10.0";
// Residents (DCGM-style demands): a memory-bound ETL step and a compute-bound trainer.
constexpr char kMemoryBound[] = "v1;pod=ml/etl-0;gpu=0;type=training;busy=0.600;sm=0.300;dram=0.550;mem-gib=8.0";
constexpr char kComputeBound[] = "v1;pod=ml/train-1;gpu=0;type=training;busy=0.600;sm=0.570;dram=0.120;mem-gib=8.0";

std::string Pod(const std::string& annotations, int gpus = 1) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"bert-ft-5f7","namespace":"ml","annotations":{)" +
         annotations +
         R"(}},"spec":{"schedulerName":"default-scheduler","containers":[{"name":"trainer","image":"pytorch:24.01",)"
         R"("resources":{"limits":{"nvidia.com/gpu":")" +
         std::to_string(gpus) + R"("},"requests":{"cpu":"4"}}},{"name":"sidecar","image":"envoy"}]},)"
         R"("status":{"phase":"Pending"}})";
}

// One A100 40GB shared by two MPS clients (the device plugin's sharing.mps, replicas 2),
// or as given.
std::string NodeWithResidents(const std::string& name, const std::string& resident_demand, const std::string& strategy = "mps",
                 int replicas = 2, int gpus = 1) {
  std::string annotations =
      resident_demand.empty() ? "" : R"("kraken.io/resident-demand":")" + resident_demand + R"(")";
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
         R"(","labels":{"kubernetes.io/hostname":")" + name +
         R"(","nvidia.com/gpu.product":"NVIDIA-A100-SXM4-40GB","nvidia.com/gpu.count":")" + std::to_string(gpus) +
         R"(","nvidia.com/gpu.replicas":")" + std::to_string(replicas) + R"(","nvidia.com/gpu.sharing-strategy":")" +
         strategy + R"("},"annotations":{)" + annotations + R"(}},"status":{"capacity":{"cpu":"64","nvidia.com/gpu":")" +
         std::to_string(gpus * replicas) + R"("},"allocatable":{"cpu":"63500m","nvidia.com/gpu":")" +
         std::to_string(gpus * replicas) + R"("}}})";
}

std::string Args(const std::string& pod, const std::vector<std::string>& nodes) {
  std::string items;
  for (const std::string& n : nodes) items += (items.empty() ? "" : ",") + n;
  return R"({"pod":)" + pod + R"(,"nodes":{"apiVersion":"v1","kind":"NodeList","metadata":{},"items":[)" + items +
         "]}}";
}

std::string DemandPod() { return Pod(R"("kraken.io/demand":")" + std::string(kPodDemand) + R"(")"); }

// Time-slicing (the device plugin's default sharing), 4 replicas per A100.
constexpr char kQuietMemoryBound[] = "v1;pod=ml/etl-0;gpu=0;type=training;busy=0.200;sm=0.100;dram=0.180;mem-gib=8.0";
constexpr char kBusyComputeBound[] = "v1;pod=ml/train-1;gpu=0;type=training;busy=0.700;sm=0.650;dram=0.100;mem-gib=8.0";

std::vector<std::string> TimeSlicedNodes() {
  auto ts = [](const std::string& name, const std::string& residents) {
    return NodeWithResidents(name, residents, "time-slicing", 4);
  };
  return {ts("ts-empty", "none"),
          ts("ts-quiet", kQuietMemoryBound),
          ts("ts-busy", kBusyComputeBound),
          ts("ts-three", std::string(kBusyComputeBound) +
                             ",v1;pod=ml/b;gpu=0;busy=0.800;sm=0.700;dram=0.300;mem-gib=4.0"
                             ",v1;pod=ml/c;gpu=0;busy=0.600;sm=0.500;dram=0.300;mem-gib=4.0"),
          ts("ts-oom", "v1;pod=ml/big;gpu=0;busy=0.100;mem-gib=33.0"),
          ts("ts-unknown", "")};
}

// The exact bodies kube-scheduler gets back, and the decisions behind them.
TEST(ExtenderModelTest, TimeSlicedNodesAreFilteredAndRankedByThePredictedSlowdown) {
  auto request = ParseExtenderArgs(Args(DemandPod(), TimeSlicedNodes()));
  ASSERT_TRUE(request.ok()) << request.status().message();
  EXPECT_EQ(request->pod_gpu_request, 1);  // the trainer's limit; the sidecar asks for none
  EXPECT_EQ(request->nodes[1].labels.at("nvidia.com/gpu.sharing-strategy"), "time-slicing");
  EXPECT_EQ(request->nodes[1].allocatable_gpus, 4);
  std::vector<NodeDecision> d = DecideNodes(*request);
  ASSERT_EQ(d.size(), 6u);
  // Alone on its GPU: no slowdown, no interference term lost; packing finds it the
  // emptiest (BestFit 95 vs 96 on the shared GPUs -> min-max 0).
  EXPECT_DOUBLE_EQ(d[0].pod_slowdown, 1.0);
  EXPECT_EQ(d[0].score, 70);
  // A quiet memory-bound resident (busy 0.2): pod and resident x1.105 each.
  EXPECT_NEAR(d[1].pod_slowdown, 1.105462, 1e-6);
  EXPECT_NEAR(d[1].interference_cost, 0.210924, 1e-6);
  EXPECT_EQ(d[1].score, 85);  // 100 x (0.7 x 0.789 + 0.3 x 1)
  // A busy compute-bound resident (busy 0.7): x1.369 each.
  EXPECT_NEAR(d[2].pod_slowdown, 1.369117, 1e-6);
  EXPECT_EQ(d[2].score, 48);  // 100 x (0.7 x 0.262 + 0.3 x 1)
  // Three busy residents: the pod would run x2.107 > --max-slowdown 2.
  EXPECT_FALSE(d[3].fits);
  EXPECT_NEAR(d[3].pod_slowdown, 2.107351, 1e-6);
  // 33 GiB resident + the pod's 10 GiB > the A100's 40 GiB.
  EXPECT_FALSE(d[4].fits);
  // No kraken data: passes, neutral.
  EXPECT_TRUE(d[5].fits);
  EXPECT_EQ(d[5].score, kNeutralScore);
  EXPECT_EQ(d[5].basis, "no data");

  // Among the nodes where the pod shares a GPU, the ranking follows the predicted slowdown.
  EXPECT_LT(d[1].pod_slowdown, d[2].pod_slowdown);
  EXPECT_GT(d[1].score, d[2].score);
  // The empty node ranks below the quiet one: packing (weight 0.3) prefers the shared GPU
  // and may outweigh a summed extra of at most 0.3 / 0.7 x (2 - 1) = 0.43 (here 0.211).
  EXPECT_GT(d[1].score, d[0].score);

  EXPECT_EQ(PrioritizeResponseJson(d),
            R"([{"host":"ts-empty","score":70},{"host":"ts-quiet","score":85},{"host":"ts-busy","score":48},)"
            R"({"host":"ts-three","score":0},{"host":"ts-oom","score":0},{"host":"ts-unknown","score":50}])");
  std::string filtered = FilterResponseJson(*request, d);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(filtered);
  simdjson::dom::array items = doc["nodes"]["items"].get_array();
  std::vector<std::string> kept;
  for (simdjson::dom::element item : items) kept.emplace_back(std::string_view(item["metadata"]["name"]));
  EXPECT_EQ(kept, (std::vector<std::string>{"ts-empty", "ts-quiet", "ts-busy", "ts-unknown"}));
  EXPECT_EQ(std::string_view(items.at(1)["status"]["allocatable"]["nvidia.com/gpu"]), "4");  // echoed whole
  const std::string prefix =
      "GPU 0 with %d resident(s), device a100-40gb-sxm (label nvidia.com/gpu.product), time-slicing, 4 share(s) per "
      "GPU, 1 GPU(s) (label nvidia.com/gpu.count): ";
  auto with = [&](int residents) {
    std::string p = prefix;
    p.replace(p.find("%d"), 2, std::to_string(residents));
    return p;
  };
  EXPECT_EQ(std::string_view(doc["failedNodes"]["ts-three"]),
            with(3) + "pod x2.107 + ml/train-1 x2.403/x2.034 + ml/b x2.519/x2.097 + ml/c x2.266/x1.949 (resident: "
                      "with/without the pod); worst x2.107 (ml/bert-ft-5f7); above --max-slowdown 2.00");
  EXPECT_EQ(std::string_view(doc["failedNodes"]["ts-oom"]),
            with(1) + "pod x1.053 + ml/big x1.053/x1.000 (resident: with/without the pod); worst x1.053 "
                      "(ml/bert-ft-5f7); does not fit: memory: 43.0 GiB needed together > 40.0 GiB on a100-40gb-sxm "
                      "(every workload sharing it is at risk of out-of-memory)");
  EXPECT_EQ(doc["failedNodes"].get_object().size(), 2u);
  EXPECT_EQ(d[1].reason, with(1) + "pod x1.105 + ml/etl-0 x1.105/x1.000 (resident: with/without the pod); worst "
                                   "x1.105 (ml/bert-ft-5f7); interference = max(0, 1 - summed extra 0.211 / (2.00 - 1)) "
                                   "= 0.789; packing BestFit 96 -> 1.000 (min-max over the 3 node(s) scored: 95..96); "
                                   "score = 100 x (0.70 x 0.789 + 0.30 x 1.000) = 85");
}

// The extender's prediction is PredictColocation's: the same workloads built directly
// from the demand annotations give the same slowdown.
TEST(ExtenderModelTest, PredictionEqualsPredictColocationCalledDirectly) {
  std::string why;
  std::optional<DemandEntry> pod = ParseDemandEntry(kPodDemand, &why);
  std::optional<DemandEntry> resident = ParseDemandEntry(kQuietMemoryBound, &why);
  ASSERT_TRUE(pod && resident) << why;
  std::vector<ColocationWorkload> ws = {BuildColocationWorkload(resident->demand, {}, ColocationParameters{}),
                                        BuildColocationWorkload(pod->demand, {}, ColocationParameters{})};
  ColocateOptions options;
  options.modes = {SharingMode::kTimeSlice};
  options.device = FindDeviceSpec("a100-40gb-sxm");
  ColocationReport report = PredictColocation(ws, options);
  ASSERT_EQ(report.modes.size(), 1u);
  ASSERT_EQ(report.modes[0].workloads.size(), 2u);
  auto request = ParseExtenderArgs(Args(DemandPod(), TimeSlicedNodes()));
  ASSERT_TRUE(request.ok());
  std::vector<NodeDecision> d = DecideNodes(*request);
  EXPECT_DOUBLE_EQ(d[1].pod_slowdown, report.modes[0].workloads[1].penalty);
  EXPECT_DOUBLE_EQ(d[1].interference_cost,
                   report.modes[0].workloads[0].penalty - 1 + report.modes[0].workloads[1].penalty - 1);
  // The device came from the node's GPU feature discovery label.
  NodeGpuView view = ViewOfNode(request->nodes[1]);
  EXPECT_EQ(view.device, FindDeviceSpec("a100-40gb-sxm"));
  EXPECT_EQ(view.gpus, 1);
  EXPECT_EQ(view.replicas, 4);
  EXPECT_EQ(WorkloadsOnGpu(view, 0, *pod, "ml/p").size(), 2u);
}

// Under MPS (the device plugin caps each client at 1/replicas of the SMs) the resident's
// class matters: the pod's DRAM traffic slows a memory-bound resident, not a
// compute-bound one; the pod itself runs x1.425 anywhere (its grids want 90 % of the SMs
// and get 50 %).
TEST(ExtenderModelTest, MpsNodesRankAComputeBoundResidentAboveAMemoryBoundOne) {
  auto request = ParseExtenderArgs(
      Args(DemandPod(), {NodeWithResidents("gpu-empty", "none"), NodeWithResidents("gpu-mem", kMemoryBound), NodeWithResidents("gpu-comp", kComputeBound)}));
  ASSERT_TRUE(request.ok());
  std::vector<NodeDecision> d = DecideNodes(*request);
  ASSERT_EQ(d.size(), 3u);
  for (const NodeDecision& n : d) EXPECT_DOUBLE_EQ(n.pod_slowdown, 1.425);
  EXPECT_NEAR(d[1].interference_cost, 0.512918, 1e-6);  // etl-0: x1.121 with the pod, x1.030 without
  EXPECT_DOUBLE_EQ(d[2].interference_cost, 0.425);      // train-1: x1.570 either way
  // The MPS thread percentage the model recommends for the pod beside each resident (none
  // alone on a GPU): the model's own split (analysis/colocate/mps_percentage.h).
  EXPECT_EQ(d[0].mps_thread_percentage, -1);
  // Here 100 (no cap): the search over splits finds none that lowers the worst penalty
  // below running uncapped.
  EXPECT_EQ(d[1].mps_thread_percentage, 100);
  EXPECT_EQ(d[2].mps_thread_percentage, 100);
  EXPECT_NE(d[1].reason.find("; MPS: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE="), std::string::npos) << d[1].reason;
  EXPECT_EQ(PrioritizeResponseJson(d),
            R"([{"host":"gpu-empty","score":40},{"host":"gpu-mem","score":64},{"host":"gpu-comp","score":70}])");
  // FGD instead of BestFit: every candidate offers the same share, so no placement changes
  // the fragmentation (all equal -> packing term 1).
  ExtenderOptions fgd;
  fgd.packing_policy = "FGD";
  EXPECT_EQ(PrioritizeResponseJson(DecideNodes(*request, fgd)),
            R"([{"host":"gpu-empty","score":70},{"host":"gpu-mem","score":64},{"host":"gpu-comp","score":70}])");
}

TEST(ExtenderModelTest, WholeGpuRequestsUnknownVersionsAndFallbacks) {
  // Two whole GPUs on exclusive GPUs (no replicas): the pod runs alone; a node whose
  // residents hold 3 of its 4 GPUs cannot take it.
  std::string pod = Pod(R"("kraken.io/demand":")" + std::string(kPodDemand) + R"(")", 2);
  auto request = ParseExtenderArgs(Args(
      pod, {NodeWithResidents("x-two-free", "v1;pod=ml/a;gpu=0;busy=0.9,v1;pod=ml/b;gpu=1;busy=0.9", "none", 1, 4),
            NodeWithResidents("x-unknown", "v1;pod=ml/a;gpu=0;busy=0.9,v7;pod=ml/d;gpu=1;busy=0.9", "none", 1, 4)}));
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(request->pod_gpu_request, 2);
  std::vector<NodeDecision> d = DecideNodes(*request);
  EXPECT_TRUE(d[0].fits);
  EXPECT_DOUBLE_EQ(d[0].pod_slowdown, 1.0);
  EXPECT_EQ(d[0].score, 100);  // no interference; the only node scored for packing
  EXPECT_TRUE(d[1].fits);  // the v7 entry is ignored (GPU 1 looks free), and said so
  EXPECT_NE(d[1].reason.find("; 1 resident entr(ies) ignored (unknown version 'v7')"), std::string::npos) << d[1].reason;
  request = ParseExtenderArgs(
      Args(pod, {NodeWithResidents("x-one-free", "v1;pod=ml/a;gpu=0;busy=0.9,v1;pod=ml/b;gpu=1;busy=0.9,v1;pod=ml/c;gpu=3;busy=0.9",
                      "none", 1, 4)}));
  d = DecideNodes(*request);
  EXPECT_FALSE(d[0].fits);
  EXPECT_EQ(d[0].reason,
            "the pod needs 2 whole GPU(s); 1 have no resident (exclusive GPUs (no replicas), 4 GPU(s) (label "
            "nvidia.com/gpu.count))");

  // A pod demand of an unknown version: the class table when the old annotations are
  // there, and the reason says why.
  request = ParseExtenderArgs(Args(
      Pod(R"("kraken.io/demand":"v2;busy=0.5","kraken.io/gpu-util-p95":"0.300","kraken.io/bound":"memory")"),
      {NodeWithResidents("c-1", R"(none","kraken.io/gpu-util-p95":"0.500","kraken.io/bound":"compute)")}));
  ASSERT_TRUE(request.ok());
  d = DecideNodes(*request);
  EXPECT_EQ(d[0].basis, "class table");
  EXPECT_EQ(d[0].score, 88);
  EXPECT_EQ(d[0].reason,
            "class table (kraken.io/demand ignored (unknown version 'v2')): score = 100 x (0.5 x (1 - 0.05) + 0.5 x "
            "0.800) = 88");
  // Neither a demand nor the old annotations: every node neutral.
  request = ParseExtenderArgs(Args(Pod(R"("kraken.io/profiling":"enabled")"), {NodeWithResidents("c-1", kComputeBound)}));
  d = DecideNodes(*request);
  EXPECT_EQ(d[0].score, kNeutralScore);
  EXPECT_EQ(d[0].reason,
            "pod has no kraken.io/demand and no kraken annotations: passes with the neutral score 50");
}

// Two containers asking 2^62 GPUs each once summed to a negative count, read as "at
// least 1", and the impossible pod was admitted on a one-GPU node. GPU quantities now go
// through the one bounded parser: those, "inf", "nan", negative and fractional counts
// are refused with one line (HTTP 400 from the server) instead of wrapped or ignored.
TEST(ExtenderModelTest, ImpossibleGpuQuantitiesAreRefused) {
  for (const std::string bad : {"4611686018427387904", "1e999", "inf", "nan", "-1", "1.5", "eight"}) {
    std::string pod = Pod(R"("kraken.io/demand":")" + std::string(kPodDemand) + R"(")");
    pod.replace(pod.find(R"("nvidia.com/gpu":"1")"), 20, R"("nvidia.com/gpu":")" + bad + R"(")");
    auto request = ParseExtenderArgs(Args(pod, {NodeWithResidents("one-gpu", kMemoryBound, "mps", 1, 1)}));
    ASSERT_FALSE(request.ok()) << bad;
    EXPECT_NE(request.status().message().find("nvidia.com/gpu must be a whole count in [0, 1000000]"),
              std::string::npos)
        << bad << ": " << request.status().message();
  }
  // A bare JSON number is held to the same bound.
  std::string pod = Pod(R"("kraken.io/demand":")" + std::string(kPodDemand) + R"(")");
  pod.replace(pod.find(R"("nvidia.com/gpu":"1")"), 20, R"("nvidia.com/gpu":1e300)");
  EXPECT_FALSE(ParseExtenderArgs(Args(pod, {NodeWithResidents("one-gpu", kMemoryBound, "mps", 1, 1)})).ok());
}

TEST(ExtenderModelTest, RequestsOverTheNodeLimitAreRefused) {
  std::string names;
  for (size_t i = 0; i <= kMaxExtenderNodes; ++i) names += (i == 0 ? "\"n" : ",\"n") + std::to_string(i) + "\"";
  auto request = ParseExtenderArgs(R"({"pod":)" + DemandPod() + R"(,"nodenames":[)" + names + "]}");
  ASSERT_FALSE(request.ok());
  EXPECT_NE(request.status().message().find("more than 15000 nodes"), std::string::npos) << request.status().message();
}

}  // namespace
}  // namespace kraken::k8s
