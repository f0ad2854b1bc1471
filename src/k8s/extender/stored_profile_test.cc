// How a stored GpuWorkloadProfile's status.ncu feeds a pending pod's request: the kernel
// bound mix into a demand vector that lacks one, else the bound into a pod without
// kraken.io/bound; the pod's own annotations win. (The end-to-end path, controller to
// extender over the loopback API server, is src/k8s/controller/profile_run_test.cc.)
#include "k8s/extender/stored_profile.h"

#include <gtest/gtest.h>

namespace kraken::k8s {
namespace {

// status.ncu as the controller wrote it for the real A100 sgemm ncu CSV.
constexpr char kSgemmProfile[] =
    R"({"apiVersion":"kraken.io/v1alpha1","kind":"GpuWorkloadProfile","metadata":{"name":"job-sgemm"},)"
    R"("status":{"class":"unknown","ncu":{"job":"kraken-ncu-job-sgemm","kernels":3,"kernelTimeUs":46914817.7,)"
    R"("bound":"compute","computeBoundShare":0.714,"memoryBoundShare":0,"imported":"2026-11-26T12:05:00Z"}}})";

StoredNcuProfile SgemmStoredProfile() {
  auto parsed = ParseStoredNcuProfile(kSgemmProfile);
  EXPECT_TRUE(parsed.ok() && parsed->has_value());
  return **parsed;
}

TEST(StoredProfile, ReadsStatusNcuAndNothingWithoutIt) {
  StoredNcuProfile p = SgemmStoredProfile();
  EXPECT_EQ(p.profile, "job-sgemm");
  EXPECT_EQ(p.job, "kraken-ncu-job-sgemm");
  EXPECT_EQ(p.kernels, 3);
  EXPECT_EQ(p.bound, "compute");
  EXPECT_DOUBLE_EQ(p.compute_bound_share, 0.714);
  EXPECT_DOUBLE_EQ(p.memory_bound_share, 0);
  auto none = ParseStoredNcuProfile(R"({"metadata":{"name":"job-x"},"status":{"class":"training"}})");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto bad = ParseStoredNcuProfile("{");
  EXPECT_FALSE(bad.ok());
}

TEST(StoredProfile, FillsTheDemandsBoundMixElseTheBoundAndNeverOverridesThePod) {
  ExtenderRequest request;
  request.pod.demand = "v1;type=training;busy=0.620;dram=0.700";
  ApplyStoredProfile(SgemmStoredProfile(), &request);
  EXPECT_EQ(*request.pod.demand, "v1;type=training;busy=0.620;dram=0.700;cb=0.714;mb=0.000");
  EXPECT_EQ(request.stored_profile_note,
            "kernel bound mix cb=0.714;mb=0.000 from GpuWorkloadProfile job-sgemm (ncu run kraken-ncu-job-sgemm, 3 kernels)");
  // Its own mix: kept.
  ExtenderRequest own;
  own.pod.demand = "v1;busy=0.5;cb=0.100;mb=0.800";
  ApplyStoredProfile(SgemmStoredProfile(), &own);
  EXPECT_EQ(*own.pod.demand, "v1;busy=0.5;cb=0.100;mb=0.800");
  EXPECT_NE(own.stored_profile_note.find("not used: the pod's kraken.io/demand has its own kernel bound mix"),
            std::string::npos);
  // No demand vector: the bound, for the class table, unless the pod has one.
  ExtenderRequest classes;
  classes.pod.gpu_util_p95 = 0.4;
  ApplyStoredProfile(SgemmStoredProfile(), &classes);
  EXPECT_EQ(classes.pod.bound, "compute");
  EXPECT_EQ(classes.stored_profile_note,
            "bound compute from GpuWorkloadProfile job-sgemm (ncu run kraken-ncu-job-sgemm, 3 kernels)");
  classes.pod.bound = "memory";
  ApplyStoredProfile(SgemmStoredProfile(), &classes);
  EXPECT_EQ(classes.pod.bound, "memory");
  // No profile: nothing changes and nothing is said.
  ExtenderRequest bare;
  ApplyStoredProfile(std::nullopt, &bare);
  EXPECT_TRUE(bare.stored_profile_note.empty());
  EXPECT_FALSE(bare.pod.demand.has_value());
}

}  // namespace
}  // namespace kraken::k8s
