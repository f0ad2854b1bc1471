#include "k8s/attribution/pod_resources/gpu_pod_map.h"

#include <gtest/gtest.h>

namespace kraken::k8s {
namespace {

constexpr const char* kGpuA = "GPU-aaaaaaaa-0000-0000-0000-000000000000";
constexpr const char* kGpuB = "GPU-bbbbbbbb-0000-0000-0000-000000000000";
constexpr const char* kMigB1 = "MIG-b1b1b1b1-0000-0000-0000-000000000000";
constexpr const char* kMigB2 = "MIG-b2b2b2b2-0000-0000-0000-000000000000";

TEST(GpuPodMapTest, NormalizesDevicePluginIds) {
  EXPECT_EQ(NormalizeDeviceId(kGpuA), kGpuA);
  EXPECT_EQ(NormalizeDeviceId(kMigB1), kMigB1);
  EXPECT_EQ(NormalizeDeviceId(std::string(kGpuA) + "::3"), kGpuA);  // time-slicing replica
  EXPECT_EQ(NormalizeDeviceId("0"), "");                             // deviceIDStrategy=index
  EXPECT_EQ(NormalizeDeviceId("0:1"), "");                           // index strategy, MIG
  EXPECT_EQ(NormalizeDeviceId("nvidia0/vgpu1"), "");                 // GKE's sharing names
}

TEST(GpuPodMapTest, SharedDevicesHaveNoOwner) {
  std::vector<PodDevices> listed = {
      {"team-a", "svc-a", "main", "nvidia.com/gpu", {std::string(kGpuA) + "::0"}},
      {"team-b", "svc-b", "main", "nvidia.com/gpu", {std::string(kGpuA) + "::1"}},
      // One container holding two replicas of the same GPU still owns it alone.
      {"team-c", "svc-c", "main", "nvidia.com/gpu", {std::string(kGpuB) + "::0", std::string(kGpuB) + "::1"}},
      {"team-d", "svc-d", "main", "nvidia.com/gpu", {"3"}},
      {"team-e", "svc-e", "main", "example.com/gpu", {kMigB1}},
  };
  GpuPodMap map = GpuPodMap::Build(listed);
  EXPECT_EQ(map.Find(kGpuA), nullptr);
  EXPECT_EQ(map.shared_devices(), std::set<std::string>{kGpuA});
  ASSERT_NE(map.Find(kGpuB), nullptr);
  EXPECT_EQ(*map.Find(kGpuB), (PodRef{"team-c", "svc-c", "main"}));
  EXPECT_EQ(map.Find(kMigB1), nullptr);  // not an nvidia.com resource
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.ignored_device_ids(), 1);
  EXPECT_EQ(map.Find(""), nullptr);
}

// GPU A whole, GPU B in MIG mode with two GPU instances (ids 3 and 9).
MigUuids Migs() { return {{{kGpuB, 3}, kMigB1}, {{kGpuB, 9}, kMigB2}}; }

SeriesEntity Entity(const char* uuid, int32_t index, int32_t gpu_instance, int64_t pid) {
  SeriesEntity e;
  e.gpu_uuid = uuid;
  e.gpu_index = index;
  e.gpu_instance_id = gpu_instance;
  e.pid = pid;
  return e;
}

TEST(GpuPodMapTest, AttributesGpusMigInstancesAndTheirProcesses) {
  GpuPodMap map = GpuPodMap::Build({
      {"ml", "trainer-0", "pytorch", "nvidia.com/gpu", {kGpuA}},
      {"serving", "tgi-1", "server", "nvidia.com/mig-1g.10gb", {kMigB2}},
  });
  std::vector<SeriesEntity> entities = {
      Entity(kGpuA, 0, -1, -1),   // GPU A
      Entity(kGpuB, 1, -1, -1),   // GPU B as a whole: its slices are allocated, not the GPU
      Entity(kGpuB, 1, 3, -1),    // MIG 3g.40gb: allocated to nobody
      Entity(kGpuB, 1, 9, -1),    // MIG 1g.10gb
      Entity(kGpuA, 0, -1, 4242),  // a process on GPU A
      Entity(kGpuB, 1, 9, 5151),   // a process in MIG 1g.10gb
      Entity(kGpuB, 1, 3, 6161),   // a process in the unallocated slice: cgroup fallback
      Entity(kGpuB, 1, 3, 7171),   // a host process there
  };
  std::vector<int64_t> asked;
  PodCgroupLookup fallback = [&asked](int64_t pid) -> std::optional<PodCgroup> {
    asked.push_back(pid);
    if (pid != 6161) return std::nullopt;
    return PodCgroup{"1f3e2a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b", "0123456789abcdef0123", "burstable"};
  };
  AttributionCounts counts = AttributeEntities(map, Migs(), fallback, entities);

  EXPECT_EQ(counts.devices_attributed, 2);
  EXPECT_EQ(counts.processes_attributed, 2);
  EXPECT_EQ(counts.processes_by_cgroup, 1);
  EXPECT_EQ(asked, (std::vector<int64_t>{6161, 7171}));  // only processes the map left open

  auto labels = [](const SeriesEntity& e) { return e.namespace_name + "/" + e.pod + "/" + e.container; };
  EXPECT_EQ(labels(entities[0]), "ml/trainer-0/pytorch");
  EXPECT_EQ(labels(entities[1]), "//");
  EXPECT_EQ(labels(entities[2]), "//");
  EXPECT_EQ(labels(entities[3]), "serving/tgi-1/server");
  EXPECT_EQ(labels(entities[4]), "ml/trainer-0/pytorch");
  EXPECT_EQ(labels(entities[5]), "serving/tgi-1/server");
  // The fallback gives the pod UID and container id, never a name.
  EXPECT_EQ(labels(entities[6]), "//");
  EXPECT_EQ(entities[6].labels, (std::map<std::string, std::string>{
                                    {"container_id", "0123456789abcdef0123"},
                                    {"pod_uid", "1f3e2a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b"}}));
  EXPECT_TRUE(entities[7].labels.empty());
  EXPECT_EQ(labels(entities[7]), "//");
}

TEST(GpuPodMapTest, WithoutMapOrFallbackNothingIsLabelled) {
  std::vector<SeriesEntity> entities = {Entity(kGpuA, 0, -1, -1), Entity(kGpuA, 0, -1, 12)};
  AttributionCounts counts = AttributeEntities(GpuPodMap(), Migs(), PodCgroupLookup(), entities);
  EXPECT_EQ(counts.devices_attributed + counts.processes_attributed + counts.processes_by_cgroup, 0);
  EXPECT_TRUE(entities[0].pod.empty());
  EXPECT_TRUE(entities[1].labels.empty());
}

}  // namespace
}  // namespace kraken::k8s
