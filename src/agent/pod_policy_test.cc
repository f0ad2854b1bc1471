#include "agent/pod_policy.h"

#include "agent/device_batches.h"
#include "agent/metric_groups.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace kraken::agent {
namespace {

constexpr int64_t kAgent = 100'000'000;  // the agent's --interval: 100ms

TEST(PodPolicyTest, ReadsOptOutAndClampsTheInterval) {
  std::string note;
  PodPolicy p = ReadPodPolicy({{"kraken.io/profiling", "  DISABLED "}}, kAgent, &note);
  EXPECT_TRUE(p.disabled);
  EXPECT_EQ(p.interval_ns, 0);
  EXPECT_EQ(note, "");
  p = ReadPodPolicy({{"kraken.io/profiling", "enabled"}, {"kraken.io/profile-interval", "1s"}}, kAgent, &note);
  EXPECT_FALSE(p.disabled);
  EXPECT_EQ(p.interval_ns, 1'000'000'000);
  EXPECT_EQ(note, "");
  p = ReadPodPolicy({{"kraken.io/profile-interval", "1m30s"}}, kAgent, &note);
  EXPECT_EQ(p.interval_ns, 90'000'000'000);
  // Shorter than the agent's tick: cannot be honoured, clamped and said.
  p = ReadPodPolicy({{"kraken.io/profile-interval", "10ms"}}, kAgent, &note);
  EXPECT_EQ(p.interval_ns, kAgent);
  EXPECT_EQ(note, "kraken.io/profile-interval 10ms is shorter than the agent's --interval: sampled every 100ms");
  p = ReadPodPolicy({{"kraken.io/profile-interval", "2h"}}, kAgent, &note);
  EXPECT_EQ(p.interval_ns, 3600'000'000'000);
  EXPECT_EQ(note, "kraken.io/profile-interval 2h is longer than the 1h maximum: sampled every 1h");
  for (const char* bad : {"fast", "100", "-1s", "0", ""}) {
    p = ReadPodPolicy({{"kraken.io/profile-interval", bad}}, kAgent, &note);
    EXPECT_EQ(p.interval_ns, 0) << bad;
    EXPECT_NE(note.find("is not a duration"), std::string::npos) << bad;
  }
}

TEST(PodPolicyTest, TheDesignsKetiKeysAreReadLikeKrakensOwn) {
  std::string note;
  PodPolicy p = ReadPodPolicy({{"kraken.keti.ai/profiling", "disabled"}}, kAgent, &note);
  EXPECT_TRUE(p.disabled);
  p = ReadPodPolicy({{"kraken.keti.ai/profile-interval", "10ms"}}, kAgent, &note);
  EXPECT_EQ(p.interval_ns, kAgent);
  EXPECT_EQ(note, "kraken.keti.ai/profile-interval 10ms is shorter than the agent's --interval: sampled every 100ms");
  // kraken's spelling wins over the design's.
  p = ReadPodPolicy({{"kraken.io/profile-interval", "2s"}, {"kraken.keti.ai/profile-interval", "5s"}}, kAgent, &note);
  EXPECT_EQ(p.interval_ns, 2'000'000'000);
  // The design's example pod: all three categories (every group), the export format said.
  p = ReadPodPolicy({{"kraken.keti.ai/profiling", "enabled"},
                     {"kraken.keti.ai/profile-interval", "100ms"},
                     {"kraken.keti.ai/metrics", "gpu,memory,network"},
                     {"kraken.keti.ai/export-format", "json"}},
                    kAgent, &note);
  EXPECT_FALSE(p.disabled);
  EXPECT_EQ(p.interval_ns, kAgent);
  ASSERT_TRUE(p.metrics.has_value());
  EXPECT_TRUE(p.metrics->utilization && p.metrics->memory && p.metrics->pcie && p.metrics->nvlink &&
              p.metrics->profiling && p.metrics->processes);
  EXPECT_EQ(note,
            "kraken.keti.ai/export-format json: not acted on: the agent keeps the pod's samples in the store; "
            "`kraken export` writes them");
  EXPECT_TRUE(p.any());
}

TEST(PodPolicyTest, MetricListsNameCategoriesOrKrakensGroups) {
  std::vector<std::string> unknown;
  auto gpu = ParseMetricList(" GPU ", &unknown);
  ASSERT_TRUE(gpu.has_value());
  EXPECT_TRUE(gpu->utilization && gpu->power && gpu->clocks && gpu->temperature && gpu->profiling);
  EXPECT_FALSE(gpu->memory || gpu->pcie || gpu->nvlink);
  auto some = ParseMetricList("memory,nvlink,sm_occupancy", &unknown);
  ASSERT_TRUE(some.has_value());
  EXPECT_TRUE(some->memory && some->nvlink);
  EXPECT_FALSE(some->pcie || some->utilization);
  EXPECT_EQ(unknown, std::vector<std::string>{"sm_occupancy"});
  EXPECT_FALSE(ParseMetricList("everything", nullptr).has_value());
  std::string note;
  PodPolicy p = ReadPodPolicy({{"kraken.io/metrics", "everything"}}, kAgent, &note);
  EXPECT_FALSE(p.metrics.has_value());
  EXPECT_EQ(note,
            "kraken.io/metrics: 'everything' is not a metric group (gpu, memory, network or kraken's groups); "
            "kraken.io/metrics names no metric group: all are kept");
}

TEST(PodPolicyTest, AGpusGroupsAreTheUnionOfItsHolders) {
  std::vector<DeviceInfo> devices(2);
  devices[0].uuid = "GPU-whole";
  devices[1].uuid = "GPU-mig";
  devices[1].mig_instances.resize(2);
  devices[1].mig_instances[0].gpu_instance_id = 1;
  devices[1].mig_instances[1].gpu_instance_id = 2;
  k8s::MigUuids mig = {{{"GPU-mig", 1}, "MIG-1"}, {{"GPU-mig", 2}, "MIG-2"}};
  k8s::GpuPodMap map = k8s::GpuPodMap::Build({{"ns", "a", "c", "nvidia.com/gpu", {"GPU-whole"}},
                                              {"ns", "a", "c", "nvidia.com/mig-1g.10gb", {"MIG-1"}},
                                              {"ns", "b", "c", "nvidia.com/mig-1g.10gb", {"MIG-2"}}});
  PodPolicies policies;
  policies[{"ns", "a"}].metrics = ParseMetricList("memory", nullptr);
  policies[{"ns", "b"}].metrics = ParseMetricList("network", nullptr);
  std::vector<DevicePlan> plans = PlanDevices(devices, mig, map, policies, kAgent);
  ASSERT_EQ(plans.size(), 2u);
  ASSERT_TRUE(plans[0].metrics.has_value());
  EXPECT_TRUE(plans[0].metrics->memory);
  EXPECT_FALSE(plans[0].metrics->pcie);
  ASSERT_TRUE(plans[1].metrics.has_value());
  EXPECT_TRUE(plans[1].metrics->memory && plans[1].metrics->pcie && plans[1].metrics->nvlink);
  EXPECT_FALSE(plans[1].metrics->utilization);
  // An instance whose pod asks for nothing in particular asks for everything.
  policies.erase({"ns", "b"});
  plans = PlanDevices(devices, mig, map, policies, kAgent);
  EXPECT_FALSE(plans[1].metrics.has_value());
}

TEST(PodPolicyTest, AGpuIsSampledAtTheShortestIntervalOfItsHolders) {
  std::vector<DeviceInfo> devices(3);
  devices[0].uuid = "GPU-a";
  devices[1].uuid = "GPU-b";
  devices[2].uuid = "GPU-mig";
  devices[2].mig_instances.resize(2);
  devices[2].mig_instances[0].gpu_instance_id = 1;
  devices[2].mig_instances[1].gpu_instance_id = 2;
  k8s::MigUuids mig = {{{"GPU-mig", 1}, "MIG-1"}, {{"GPU-mig", 2}, "MIG-2"}};
  std::vector<k8s::PodDevices> listed = {{"ns", "slow", "c", "nvidia.com/gpu", {"GPU-a"}},
                                         {"ns", "off", "c", "nvidia.com/gpu", {"GPU-b"}},
                                         {"ns", "slow", "c", "nvidia.com/mig-1g.10gb", {"MIG-1"}},
                                         {"ns", "off", "c", "nvidia.com/mig-1g.10gb", {"MIG-2"}}};
  k8s::GpuPodMap map = k8s::GpuPodMap::Build(listed);
  PodPolicies policies = {{{"ns", "slow"}, {false, 2'000'000'000}}, {{"ns", "off"}, {true, 0}}};
  std::vector<DevicePlan> plans = PlanDevices(devices, mig, map, policies, kAgent);
  ASSERT_EQ(plans.size(), 3u);
  EXPECT_EQ(plans[0].interval_ns, 2'000'000'000);
  EXPECT_FALSE(plans[0].any_opted_out());
  EXPECT_TRUE(plans[1].gpu_opted_out);
  EXPECT_EQ(plans[1].interval_ns, kAgent);  // device-level series at the agent's interval
  // MIG: instance 1 asks for 2 s, instance 2 (opted out) for the agent's: the GPU is read every pass.
  EXPECT_FALSE(plans[2].gpu_opted_out);
  EXPECT_EQ(plans[2].opted_out_instances, std::vector<int32_t>{2});
  EXPECT_EQ(plans[2].interval_ns, kAgent);
}

}  // namespace
}  // namespace kraken::agent

namespace kraken::agent {
namespace {

// One pass of two GPUs: GPU 0 (entity 0) with a process (entity 1), GPU 1 (entity 2).
SampleBatch TwoGpus() {
  SampleBatch b;
  b.time_ns = 5;
  b.entities.resize(3);
  b.entities[0].gpu_index = 0;
  b.entities[0].pod = "secret";
  b.entities[0].namespace_name = "ml";
  b.entities[0].container = "c";
  b.entities[1].gpu_index = 0;
  b.entities[1].pid = 42;
  b.entities[2].gpu_index = 1;
  b.entities[2].pod = "plain";
  b.values = {{Metric::kGpuUtilPct, 0, 90, "u"},       {Metric::kSmActiveRatio, 0, 0.5, "g"},
              {Metric::kProcessUsedMemoryBytes, 1, 7, "p"}, {Metric::kPowerW, 0, 300, "w"},
              {Metric::kGpuUtilPct, 2, 10, "u"},       {Metric::kSmActiveRatio, 2, 0.1, "g"}};
  return b;
}

TEST(DeviceBatchesTest, OptedOutGpusKeepDeviceLevelValuesOnlyAndLeaveTheRecordedPass) {
  std::vector<DevicePlan> plans(2);
  plans[0].gpu_opted_out = true;
  SampleBatch b = TwoGpus();
  std::vector<uint8_t> opted;
  ASSERT_TRUE(MarkOptedOut(plans, b, opted));
  EXPECT_EQ(opted, (std::vector<uint8_t>{1, 1, 0}));
  BatchSpare spare;
  StripOptedOut(opted, b, spare);
  EXPECT_EQ(b.entities[0].pod, "");
  EXPECT_EQ(b.entities[0].namespace_name, "");
  EXPECT_EQ(b.entities[2].pod, "plain");
  // GPU 0: util and power stay; its GPM ratio and its process's memory are gone.
  ASSERT_EQ(b.values.size(), 4u);
  EXPECT_EQ(b.values[0].metric, Metric::kGpuUtilPct);
  EXPECT_EQ(b.values[1].metric, Metric::kPowerW);
  EXPECT_EQ(b.values[1].value, 300);
  EXPECT_EQ(b.values[2].entity, 2);
  EXPECT_EQ(b.values[3].metric, Metric::kSmActiveRatio);
  EXPECT_EQ(spare.values.size(), 2u);  // kept with their buffers for the next pass

  SampleBatch recorded;
  std::vector<int32_t> remap;
  BatchSpare recorded_spare;
  CopyWithoutOptedOut(opted, b, recorded, remap, recorded_spare);
  ASSERT_EQ(recorded.entities.size(), 1u);
  EXPECT_EQ(recorded.entities[0].gpu_index, 1);
  ASSERT_EQ(recorded.values.size(), 2u);
  EXPECT_EQ(recorded.values[0].entity, 0);
  EXPECT_EQ(recorded.values[0].value, 10);
  EXPECT_EQ(recorded.values[1].value, 0.1);
  EXPECT_EQ(recorded.time_ns, 5);
}

// A MIG GPU with instance 2 opted out: that instance and the processes NVML names no
// instance for are out; instance 1, its process and the GPU itself stay.
TEST(DeviceBatchesTest, AnOptedOutMigInstanceTakesItsEntitiesAndInstancelessProcesses) {
  std::vector<DevicePlan> plans(1);
  plans[0].opted_out_instances = {2};
  SampleBatch b;
  b.entities.resize(5);
  for (SeriesEntity& e : b.entities) e.gpu_index = 0;
  b.entities[1].gpu_instance_id = 1;
  b.entities[2].gpu_instance_id = 2;
  b.entities[3].gpu_instance_id = 1;
  b.entities[3].pid = 10;
  b.entities[4].pid = 11;  // no instance id
  std::vector<uint8_t> opted;
  ASSERT_TRUE(MarkOptedOut(plans, b, opted));
  EXPECT_EQ(opted, (std::vector<uint8_t>{0, 0, 1, 0, 1}));
}

TEST(DeviceBatchesTest, AGpusRequestedGroupsAreTheOnlyValuesKept) {
  std::vector<DevicePlan> plans(2);
  plans[0].metrics = ParseMetricList("network", nullptr);  // GPU 0: no utilization, no power
  SampleBatch b = TwoGpus();
  BatchSpare spare;
  KeepRequestedMetrics(plans, b, spare);
  ASSERT_EQ(b.entities.size(), 3u);
  ASSERT_EQ(b.values.size(), 2u);  // GPU 1's two values; GPU 0 had none of pcie/nvlink
  EXPECT_EQ(b.values[0].entity, 2);
  EXPECT_EQ(b.values[1].entity, 2);
  EXPECT_EQ(spare.values.size(), 4u);
  // No plan narrows its groups: the batch is untouched.
  SampleBatch all = TwoGpus();
  KeepRequestedMetrics(std::vector<DevicePlan>(2), all, spare);
  EXPECT_EQ(all.values.size(), 6u);
}

TEST(DeviceBatchesTest, TheNewestCopyPerGpuSurvivesPassesThatSkipIt) {
  std::vector<SampleBatch> per_gpu(2);
  std::vector<int32_t> remap;
  SampleBatch both = TwoGpus();
  KeepNewestPerDevice(both, {1, 1}, per_gpu, remap);
  SampleBatch only_gpu0 = TwoGpus();
  only_gpu0.time_ns = 6;
  only_gpu0.entities.pop_back();
  only_gpu0.values.resize(4);
  only_gpu0.values[0].value = 95;
  KeepNewestPerDevice(only_gpu0, {1, 0}, per_gpu, remap);
  SampleBatch shown;
  ConcatDevices(per_gpu, shown);
  EXPECT_EQ(shown.time_ns, 6);
  ASSERT_EQ(shown.entities.size(), 3u);
  EXPECT_EQ(shown.entities[2].pod, "plain");  // GPU 1 from the first pass
  ASSERT_EQ(shown.values.size(), 6u);
  EXPECT_EQ(shown.values[0].value, 95);  // GPU 0 from the second
  EXPECT_EQ(shown.values[4].entity, 2);
  EXPECT_EQ(shown.values[4].value, 10);
}

// Process utilization is read every slow interval: between reads /metrics shows each
// running process's last values; a read without a process's sample (NOT_FOUND: idle) ends
// its held values, and a process that left the running list shows nothing.
TEST(DeviceBatchesTest, ProcessUtilizationIsHeldUntilTheNextReadWhileTheProcessRuns) {
  SampleBatch read = TwoGpus();  // pid 42 on GPU 0
  read.values.push_back({Metric::kProcessSmUtilPct, 1, 60, "nvmlDeviceGetProcessUtilization.sm"});
  read.values.push_back({Metric::kProcessMemUtilPct, 1, 15, "nvmlDeviceGetProcessUtilization.mem"});
  HeldProcessValues held;
  HoldProcessValues(read, {1, 1}, held);
  EXPECT_FALSE(MissesHeldProcessValues(read, held));  // the read pass has its own values

  SampleBatch between = TwoGpus();  // the process still runs (its memory value), no utilization read
  HoldProcessValues(between, {0, 0}, held);
  ASSERT_TRUE(MissesHeldProcessValues(between, held));
  AddHeldProcessValues(held, between);
  std::vector<std::pair<Metric, double>> process_values;
  for (const SampleBatch::Value& v : between.values)
    if (v.entity == 1) process_values.emplace_back(v.metric, v.value);
  EXPECT_EQ(process_values, (std::vector<std::pair<Metric, double>>{
                                {Metric::kProcessUsedMemoryBytes, 7}, {Metric::kProcessSmUtilPct, 60},
                                {Metric::kProcessMemUtilPct, 15}}));
  EXPECT_EQ(between.values.back().source_name, "nvmlDeviceGetProcessUtilization.mem");

  SampleBatch gone = TwoGpus();  // the process left GPU 0: no entity to hold for
  gone.entities[1].pid = 43;
  EXPECT_FALSE(MissesHeldProcessValues(gone, held));

  SampleBatch idle = TwoGpus();  // GPU 0 read again, NVML had no sample of pid 42
  HoldProcessValues(idle, {1, 0}, held);
  EXPECT_FALSE(MissesHeldProcessValues(idle, held));
}

}  // namespace
}  // namespace kraken::agent
