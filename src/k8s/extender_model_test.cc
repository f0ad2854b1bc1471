// The extender's co-location path against ExtenderArgs as kube-scheduler sends them (the
// documented k8s.io/kube-scheduler/extender/v1 schema; the Node objects carry the labels
// NVIDIA's GPU feature discovery sets and the annotations `kraken annotate` writes).
// Bodies written by hand, not recorded from a live scheduler (no cluster here).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>

#include "analysis/colocate/colocate.h"
#include "analysis/colocate/workload_inputs.h"
#include "k8s/demand_annotation.h"
#include "k8s/extender_model.h"
#include "k8s/scheduler_extender.h"
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

// One A100 40GB shared by two MPS clients (the device plugin's sharing.mps, replicas 2).
std::string Node(const std::string& name, const std::string& resident_demand) {
  std::string annotations =
      resident_demand.empty() ? "" : R"("kraken.io/resident-demand":")" + resident_demand + R"(")";
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
         R"(","labels":{"kubernetes.io/hostname":")" + name +
         R"(","nvidia.com/gpu.product":"NVIDIA-A100-SXM4-40GB","nvidia.com/gpu.count":"1",)"
         R"("nvidia.com/gpu.replicas":"2","nvidia.com/gpu.sharing-strategy":"mps"},"annotations":{)" +
         annotations + R"(}},"status":{"capacity":{"cpu":"64","nvidia.com/gpu":"2"},)"
                       R"("allocatable":{"cpu":"63500m","nvidia.com/gpu":"2"}}})";
}

std::string Args(const std::string& pod, const std::vector<std::string>& nodes) {
  std::string items;
  for (const std::string& n : nodes) items += (items.empty() ? "" : ",") + n;
  return R"({"pod":)" + pod + R"(,"nodes":{"apiVersion":"v1","kind":"NodeList","metadata":{},"items":[)" + items +
         "]}}";
}

std::string DemandPod() { return Pod(R"("kraken.io/demand":")" + std::string(kPodDemand) + R"(")"); }

std::vector<std::string> FiveNodes() {
  return {Node("gpu-empty", "none"), Node("gpu-mem", kMemoryBound), Node("gpu-comp", kComputeBound),
          Node("gpu-full", std::string(kMemoryBound) + "," + kComputeBound), Node("gpu-unknown", "")};
}

TEST(ExtenderModelTest, Probe) {
  auto request = ParseExtenderArgs(Args(DemandPod(), FiveNodes()));
  ASSERT_TRUE(request.ok()) << request.status().message();
  for (const NodeDecision& d : DecideNodes(*request)) {
    std::printf("%s fits=%d score=%lld pod=%.6f worst=%.6f I=%.6f P=%.6f\n  %s\n", d.node.c_str(), d.fits,
                static_cast<long long>(d.score), d.pod_slowdown, d.worst_penalty, d.interference_term, d.packing_term,
                d.reason.c_str());
  }
}

}  // namespace
}  // namespace kraken::k8s
