#include "k8s/client/annotations.h"

#include <gtest/gtest.h>

namespace kraken::k8s {
namespace {

TEST(AnnotationsTest, FormatsRatiosWithThreeDecimals) {
  WorkloadAnnotations a;
  a.workload_type = "training";
  a.gpu_util_p95 = 0.95714;
  a.disagg_score = 1.7;  // clamped
  auto m = ToAnnotations(a);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.at("kraken.io/workload-type"), "training");
  EXPECT_EQ(m.at("kraken.io/gpu-util-p95"), "0.957");
  EXPECT_EQ(m.at("kraken.io/disagg-score"), "1.000");
  a.mps_thread_percentage = 45;
  EXPECT_EQ(ToAnnotations(a).at("kraken.io/mps-active-thread-percentage"), "45");
  WorkloadAnnotations w{"training", "compute", 0.9, 0.4, "share"};
  w.mps_thread_percentage = 45;
  EXPECT_FALSE(AggregateJob({w}).mps_thread_percentage.has_value());  // per pod, not per job
}

TEST(AnnotationsTest, JobAggregateTakesBusiestWorkerAndMostConservativeClass) {
  WorkloadAnnotations w0{"training", "compute", 0.9571, 0.42, "dedicated"};
  WorkloadAnnotations w1{"training", "memory", 0.88, 0.61, "mig"};
  WorkloadAnnotations job = AggregateJob({w0, w1});
  EXPECT_EQ(*job.workload_type, "training");
  EXPECT_EQ(*job.bound, "mixed");
  EXPECT_DOUBLE_EQ(*job.gpu_util_p95, 0.9571);
  EXPECT_DOUBLE_EQ(*job.disagg_score, 0.42);
  EXPECT_EQ(*job.colocation_class, "dedicated");
  EXPECT_FALSE(AggregateJob({}).workload_type.has_value());
}

TEST(AnnotationsTest, OnlyChangedValuesArePatched) {
  std::map<std::string, std::string> current{{"kraken.io/workload-type", "training"}, {"team", "nlp"}};
  std::map<std::string, std::string> desired{{"kraken.io/workload-type", "training"}, {"kraken.io/bound", "memory"}};
  auto changed = ChangedAnnotations(current, desired);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed.at("kraken.io/bound"), "memory");
  EXPECT_TRUE(ChangedAnnotations(desired, desired).empty());
  EXPECT_EQ(AnnotationPatchBody(changed), R"({"metadata":{"annotations":{"kraken.io/bound":"memory"}}})");
}

}  // namespace
}  // namespace kraken::k8s
