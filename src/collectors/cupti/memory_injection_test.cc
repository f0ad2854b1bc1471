// Device memory end to end without a GPU: the fake libcupti (fake_cupti.cc) delivers memory
// records (KRAKEN_FAKE_CUPTI_ALLOCATIONS=1) through the real injection path, the tracer
// writes them as counter events, and the trace alone gives `kraken mig-plan` a measured
// memory peak where it said "memory not measured".
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analysis/characterize.h"
#include "analysis/demand.h"
#include "analysis/mig/mig_plan.h"
#include "base/testing/built_files.h"
#include "base/testing/test_data.h"
#include "collectors/cupti/injection_test_support.h"
#include "importers/registry.h"
#include "model/mig_catalog.h"

namespace kraken::cupti {
namespace {

using namespace injection_testing;  // NOLINT: the shared helpers

constexpr double kGiB = 1024.0 * 1024 * 1024;

Profile TraceOfFakeRun(const std::string& name, const std::map<std::string, std::string>& extra) {
  std::string dir = testing::MakeTempDir(name);
  std::map<std::string, std::string> env = {{"KRAKEN_CUPTI_LIBRARY", KRAKEN_CUPTI_FAKE_LIBRARY},
                                            {"KRAKEN_FAKE_CUPTI_LAUNCHES", "400"},
                                            {"KRAKEN_CUPTI_QUIET", "1"},
                                            {"KRAKEN_CUPTI_OUTPUT", dir + "/trace_%p.json"}};
  for (const auto& [key, value] : extra) env[key] = value;
  Injected r = RunInjected(env, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto imported = ImportFile(BuiltinImporters(), TraceFileIn(dir));
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  if (!imported.ok()) return Profile();
  EXPECT_EQ((*imported)[0].kernels.size(), 400u);
  return std::move((*imported)[0]);
}

// The workload `kraken mig-plan --gpu h100-sxm TRACE` plans (as LoadMigWorkloads derives it).
mig::MigChoice PlanOnH100(const Profile& p, mig::MigWorkload* workload) {
  std::vector<WorkloadDemand> demands = DeriveDemands(p, CharacterizeWorkload(p));
  EXPECT_EQ(demands.size(), 1u);
  if (!demands.empty()) *workload = mig::MigWorkloadFromDemand(demands[0]);
  const MigGeometry* h100 = FindMigGeometry("h100-sxm");
  EXPECT_NE(h100, nullptr);
  if (h100 == nullptr || demands.empty()) return {};
  mig::MigPlan plan = mig::PlanMig({*workload}, *h100);
  return plan.choices.at(0);
}

TEST(MemoryInjectionTest, TheProgramsAllocationsAreTheMeasuredMemoryOfItsTrace) {
  Profile p = TraceOfFakeRun("memory_injection", {{"KRAKEN_FAKE_CUPTI_ALLOCATIONS", "1"}});
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_activities"), "kernels,memcpy,memset,nvtx,api,memory");
  const Series* series = nullptr;
  for (const Series& s : p.series)
    if (s.metric == Metric::kCudaAllocatedBytes) series = &s;
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->entity.gpu_index, 0);
  std::vector<double> values;
  for (const Sample& sample : series->samples) values.push_back(sample.value);
  EXPECT_EQ(values, (std::vector<double>{kGiB, 1.5 * kGiB, kGiB}));
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_allocations"), "2");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_releases"), "1");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_releases_of_unknown_addresses"), "1");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_pool_records_not_counted"), "1");
  EXPECT_EQ(p.metadata.attributes.count("kraken_cupti_memory_records"), 0u);  // not refused

  mig::MigWorkload workload;
  mig::MigChoice choice = PlanOnH100(p, &workload);
  ASSERT_TRUE(workload.need.memory_measured);
  EXPECT_EQ(workload.need.memory_bytes, 1.5 * kGiB);
  EXPECT_EQ(workload.need.memory_basis.rfind("CUDA allocations outstanding (CUPTI memory records", 0), 0u)
      << workload.need.memory_basis;
  EXPECT_EQ(choice.reason.find("memory not measured"), std::string::npos) << choice.reason;
  EXPECT_NE(choice.reason.find("memory "), std::string::npos) << choice.reason;
  EXPECT_NEAR(choice.memory_need_bytes, 1.5 * kGiB * 1.1, 1);
}

TEST(MemoryInjectionTest, WithoutMemoryRecordsTheTraceHasNoMemory) {
  // The activity list without `memory`: the kind is not enabled, the fake sends nothing.
  Profile p = TraceOfFakeRun("memory_injection_off",
                             {{"KRAKEN_FAKE_CUPTI_ALLOCATIONS", "1"}, {"KRAKEN_CUPTI_ACTIVITIES", "kernels,api"}});
  for (const Series& s : p.series) EXPECT_NE(s.metric, Metric::kCudaAllocatedBytes);
  mig::MigWorkload workload;
  mig::MigChoice choice = PlanOnH100(p, &workload);
  EXPECT_FALSE(workload.need.memory_measured);
  EXPECT_NE(choice.reason.find("memory not measured"), std::string::npos) << choice.reason;
}

TEST(MemoryInjectionTest, ALibcuptiRefusingMemoryRecordsStillTracesAndTheTraceSaysWhy) {
  Profile p = TraceOfFakeRun("memory_injection_refused", {{"KRAKEN_FAKE_CUPTI_ALLOCATIONS", "refuse"}});
  for (const Series& s : p.series) EXPECT_NE(s.metric, Metric::kCudaAllocatedBytes);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_records").rfind("unavailable: CUPTI_ERROR_FAKE", 0), 0u)
      << p.metadata.attributes.at("kraken_cupti_memory_records");
}

}  // namespace
}  // namespace kraken::cupti
