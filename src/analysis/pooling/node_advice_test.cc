// What the controller writes per node and pod from a pooling plan: the MIG instances each
// node's pods ask for, and the MPS thread percentage of each pod of a share group.
#include <gtest/gtest.h>

#include "analysis/pooling/node_mig_instances.h"
#include "analysis/pooling/share_mps.h"
#include "model/device_catalog.h"

namespace kraken::pooling {
namespace {

PodGpuUse AdviceUse(const std::string& pod, const std::string& node, const char* device_id, double busy, double gib,
                    const std::string& mig_profile = "") {
  PodGpuUse u;
  u.namespace_name = "ml";
  u.pod = pod;
  u.node = node;
  u.gpu_uuid = "GPU-" + pod;
  u.mig_profile = mig_profile;
  u.device = FindDeviceSpec(device_id);
  for (DemandStat* s : {&u.demand.gpu_busy, &u.demand.memory_bytes}) {
    s->measured = true;
    s->basis = "test";
  }
  u.demand.gpu_busy.mean = u.demand.gpu_busy.p95 = u.demand.gpu_busy.max = busy;
  u.demand.memory_bytes.mean = u.demand.memory_bytes.p95 = u.demand.memory_bytes.max = gib * 1024 * 1024 * 1024;
  u.demand.device_sm_count = u.device->sm_count;
  u.demand.device_memory_bytes = static_cast<double>(u.device->memory_bytes);
  u.demand.gpu_index = 0;
  return u;
}

TEST(PoolingNodeAdvice, MigInstancesPerNodeAndMpsPercentagesPerSharedPod) {
  std::vector<PodGpuUse> uses = {
      AdviceUse("notebook-a", "n1", "a100-40gb-sxm", 0.10, 4),                // sliced: 4g.20gb
      AdviceUse("notebook-b", "n1", "a100-40gb-sxm", 0.06, 4),                // sliced: 3g.20gb
      AdviceUse("in-slice", "n2", "a100-40gb-sxm", 0.95, 4, "2g.10gb"),       // kept in its slice
      AdviceUse("trainer", "n2", "a100-40gb-sxm", 0.95, 30),                  // kept whole
      AdviceUse("small-1", "n3", "l4", 0.30, 4),                              // shared
      AdviceUse("small-2", "n3", "l4", 0.40, 6),
  };
  PoolingReport report = FindPoolingCandidates(uses);
  std::map<std::string, std::map<std::string, int>> mig = MigInstancesByNode(uses, report);
  // notebook-a needs 4.4 GiB and 10 % of the SMs: 1g.5gb covers that, but busy 10 % of the
  // time with kernels taken to fill the GPU (no SM-activity series), 1g.5gb (14 of 108 SMs)
  // is predicted 0.10 / (14/108) - 0.10 = 67.1 % slower, 2g.10gb 28.6 %, 3g.20gb 15.7 %: over
  // the 10 % budget; 4g.20gb (9.3 %) is within it. notebook-b (busy 6 %): 3g.20gb,
  // 0.06 / (42/108) - 0.06 = 9.4 %. The two share one A100.
  using Instances = std::map<std::string, std::map<std::string, int>>;
  EXPECT_EQ(mig, (Instances{{"n1", {{"3g.20gb", 1}, {"4g.20gb", 1}}}, {"n2", {{"2g.10gb", 1}}}}));
  // A budget of 1000 %: 1g.5gb, as before the budget.
  PoolingOptions any;
  any.max_slowdown = 10;
  EXPECT_EQ(MigInstancesByNode(uses, FindPoolingCandidates(uses, any)),
            (Instances{{"n1", {{"1g.5gb", 2}}}, {"n2", {{"2g.10gb", 1}}}}));
  std::map<int, int> mps = MpsPercentagesOfShareGroups(uses, report);
  // Two light pods (busy 0.30 and 0.40) on one L4: no cap serves both best.
  EXPECT_EQ(mps, (std::map<int, int>{{4, 100}, {5, 100}}));
}

}  // namespace
}  // namespace kraken::pooling
