// The store's small records on both backends: upload keys (one stored copy per body, also
// for writers racing on separate connections) and the legacy API's workloads (a later Put
// of an id replaces it).
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "store/pg/store_backend_testing.h"
#include "store/store.h"
#include "store/store_testing.h"

namespace kraken {
namespace {

class StoreRecordsTest : public store::testing::StoreBackendTest {};

TEST_P(StoreRecordsTest, AnUploadKeyStoresItsBodyOnceAcrossConnections) {
  std::string location = NewStore("store_upload_keys");
  // The store exists before the writers race, so that this test is about upload keys only:
  // eight connections creating a new SQLite file at once raced on its set-up (the switch to
  // WAL: one immediate "database is locked" under ASan), fixed in schema.cc's CreateStore
  // and tested by store_startup_race_test.cc.
  ASSERT_TRUE(ProfileStore::Open(location).ok());
  // Eight writers, each its own connection, save the same two bodies at once (each writer
  // its own copy of the profile: SaveUpload adds the key to its attributes).
  constexpr int kWriters = 8;
  std::vector<std::vector<Profile>> copies;
  for (int i = 0; i <= kWriters; ++i) {
    auto orion = ImportFile(BuiltinImporters(), testing::DataPath("orion/resnet50_4_fwd.csv"));
    ASSERT_TRUE(orion.ok()) << orion.status().message();
    copies.push_back(std::move(orion).value());
  }
  std::vector<Result<UploadSave>> saves(kWriters, Result<UploadSave>(UploadSave{}));
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i)
    writers.emplace_back([&, i] {
      auto store = ProfileStore::Open(location);
      if (!store.ok()) {
        saves[static_cast<size_t>(i)] = store.status();
        return;
      }
      saves[static_cast<size_t>(i)] =
          (*store)->SaveUpload(copies[static_cast<size_t>(i)], i % 2 == 0 ? "sha-even" : "sha-odd");
    });
  for (std::thread& t : writers) t.join();
  int stored = 0, duplicates = 0;
  std::set<std::vector<int64_t>> ids_by_key[2];
  for (int i = 0; i < kWriters; ++i) {
    const auto& save = saves[static_cast<size_t>(i)];
    ASSERT_TRUE(save.ok()) << save.status().message();
    (save->duplicate ? duplicates : stored) += 1;
    ids_by_key[i % 2].insert(save->ids);
  }
  EXPECT_EQ(stored, 2);
  EXPECT_EQ(duplicates, kWriters - 2);
  // Every writer of one body was answered the same ids.
  EXPECT_EQ(ids_by_key[0].size(), 1u);
  EXPECT_EQ(ids_by_key[1].size(), 1u);
  EXPECT_EQ(store::testing::CountRows(location, "profiles"), 2);
  EXPECT_EQ(store::testing::CountRows(location, "upload_keys"), 2);

  auto store = ProfileStore::Open(location);
  ASSERT_TRUE(store.ok());
  auto found = (*store)->FindUpload("sha-odd");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, *ids_by_key[1].begin());
  // Retention deleted the body's profiles: the same body is stored anew.
  ASSERT_TRUE((*store)->DeleteProfile(found->front()).ok());
  auto resaved = (*store)->SaveUpload(copies.back(), "sha-odd");
  ASSERT_TRUE(resaved.ok()) << resaved.status().message();
  EXPECT_FALSE(resaved->duplicate);
  EXPECT_EQ(resaved->ids.size(), 1u);
}

TEST_P(StoreRecordsTest, ALegacyWorkloadIsReplacedById) {
  auto store = ProfileStore::Open(NewStore("store_legacy"));
  ASSERT_TRUE(store.ok()) << store.status().message();
  LegacyWorkloadRecord first{.workload_id = "train-b", .kernel_type = "COMPUTE_BOUND",
                             .arithmetic_intensity = 42.5, .compute_ratio = 0.8, .memory_ratio = 0.1,
                             .mixed_ratio = 0.1, .description = "first", .source = "measured", .measured = true,
                             .data_source = "kineto", .profiled_at = "2026-11-26 10:00:00", .profile_id = 7};
  ASSERT_TRUE((*store)->PutLegacyWorkload(first).ok());
  LegacyWorkloadRecord other = first;
  other.workload_id = "infer-a";
  other.arithmetic_intensity.reset();
  other.profile_id.reset();
  ASSERT_TRUE((*store)->PutLegacyWorkload(other).ok());
  LegacyWorkloadRecord replaced = first;
  replaced.kernel_type = "MEMORY_BOUND";
  replaced.description = "second";
  replaced.arithmetic_intensity = 0.25;
  ASSERT_TRUE((*store)->PutLegacyWorkload(replaced).ok());
  auto listed = (*store)->ListLegacyWorkloads();
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].workload_id, "infer-a");
  EXPECT_FALSE((*listed)[0].arithmetic_intensity.has_value());
  EXPECT_FALSE((*listed)[0].profile_id.has_value());
  EXPECT_EQ((*listed)[1].workload_id, "train-b");
  EXPECT_EQ((*listed)[1].kernel_type, "MEMORY_BOUND");
  EXPECT_EQ((*listed)[1].description, "second");
  EXPECT_EQ((*listed)[1].arithmetic_intensity, 0.25);
  EXPECT_EQ((*listed)[1].profile_id, 7);
  EXPECT_TRUE((*listed)[1].measured);
}

// `kraken profile --kernels` stores the tracer's trace: its CUDA allocation series (metrics
// are stored by name) must come back as that metric, not as "other".
TEST_P(StoreRecordsTest, ACudaAllocationSeriesKeepsItsMetric) {
  auto store = ProfileStore::Open(NewStore("store_cuda_memory"));
  ASSERT_TRUE(store.ok()) << store.status().message();
  Profile profile;
  profile.metadata.source = "trace.json";
  profile.metadata.format = "kineto";
  Series& series = profile.series.emplace_back();
  series.metric = Metric::kCudaAllocatedBytes;
  series.source_name = "CUDA device memory";
  series.entity.gpu_index = 1;
  series.samples = {{1000, 1073741824.0}, {2000, 536870912.0}};
  auto id = (*store)->SaveProfile(profile);
  ASSERT_TRUE(id.ok()) << id.status().message();
  auto loaded = (*store)->LoadProfile(*id);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->series.size(), 1u);
  EXPECT_EQ(loaded->series[0].metric, Metric::kCudaAllocatedBytes);
  EXPECT_EQ(loaded->series[0].entity.gpu_index, 1);
  ASSERT_EQ(loaded->series[0].samples.size(), 2u);
  EXPECT_EQ(loaded->series[0].samples[0].value, 1073741824.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreRecordsTest, store::testing::AllStoreBackends(),
                         store::testing::StoreBackendParamName());

}  // namespace
}  // namespace kraken
