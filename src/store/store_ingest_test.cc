// Live ingest: a begun profile stays invisible until Commit, Abort leaves nothing, and
// what was appended reads back exactly, in full and downsampled.
#include <gtest/gtest.h>

#include <cmath>

#include "base/testing/test_data.h"
#include "importers/registry.h"
#include "store/pg/store_backend_testing.h"
#include "store/store.h"
#include "store/store_testing.h"
#include "store/synthetic_node.h"

namespace kraken {
namespace {

using store::testing::MakeNodeBatch;
using store::testing::NodeShape;
using store::testing::PassTime;
using store::testing::SyntheticValue;

class StoreIngestTest : public store::testing::StoreBackendTest {};

ProfileMetadata LiveMetadata() {
  ProfileMetadata md;
  md.source = "nvml:node-7";
  md.format = "nvml";
  md.hostname = "node-7";
  md.attributes["driver"] = "590.48.01";
  return md;
}

std::vector<DeviceInfo> EightH100s() {
  std::vector<DeviceInfo> devices(8);
  for (int i = 0; i < 8; ++i) {
    devices[i].index = i;
    devices[i].name = "NVIDIA H100 80GB HBM3";
    devices[i].memory_bytes = 85'520'809'984;
    devices[i].vendor = Vendor::kNvidia;
  }
  return devices;
}

TEST_P(StoreIngestTest, BegunProfileIsInvisibleUntilCommit) {
  std::string path = NewStore("store_visibility");
  auto writer = ProfileStore::Open(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  auto id = (*writer)->BeginProfile(LiveMetadata(), EightH100s());
  ASSERT_TRUE(id.ok()) << id.status().message();
  NodeShape shape;
  // 1100 passes: two full blocks per series are written (in a flush transaction) before Commit.
  for (uint64_t pass = 0; pass < 1100; ++pass)
    ASSERT_TRUE((*writer)->AppendBatch(*id, MakeNodeBatch(shape, pass, PassTime(pass))).ok());

  auto reader = ProfileStore::Open(path, {.read_only = true});
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  for (ProfileStore* store : {writer->get(), reader->get()}) {
    auto listed = store->ListProfiles();
    ASSERT_TRUE(listed.ok());
    EXPECT_TRUE(listed->empty());
    auto loaded = store->LoadProfile(*id);
    EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
    EXPECT_NE(loaded.status().message().find("no profile 1"), std::string::npos) << loaded.status().message();
  }
  // Full blocks are already on disk, just not visible.
  EXPECT_EQ(store::testing::CountRows(path, "sample_blocks"), 248 * 2);

  ASSERT_TRUE((*writer)->Commit(*id).ok());
  auto listed = (*reader)->ListProfiles();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  const StoredProfileInfo& info = listed->front();
  EXPECT_EQ(info.kind, "live");
  EXPECT_EQ(info.series, 248);
  EXPECT_EQ(info.samples, 1100 * 248);
  EXPECT_EQ(info.device_names.size(), 8u);
  EXPECT_EQ(*info.start_ns, PassTime(0));
  EXPECT_EQ(*info.end_ns, PassTime(1099));
  EXPECT_EQ(store::testing::CountRows(path, "sample_blocks"), 248 * 3);  // + the partial last block

  auto loaded = (*reader)->LoadProfile(*id);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->metadata.attributes.at("driver"), "590.48.01");
  ASSERT_EQ(loaded->series.size(), 248u);
  // Series are numbered in first-seen order: GPU 3's power is 3 * (25 + 6) + 6.
  const Series& power = loaded->series[3 * 31 + 6];
  EXPECT_EQ(power.metric, Metric::kPowerW);
  EXPECT_EQ(power.entity.gpu_index, 3);
  EXPECT_EQ(power.entity.pid, -1);
  ASSERT_EQ(power.samples.size(), 1100u);
  for (uint64_t pass = 0; pass < 1100; ++pass) {
    ASSERT_EQ(power.samples[pass].time_ns, PassTime(pass));
    ASSERT_EQ(power.samples[pass].value, SyntheticValue(Metric::kPowerW, 3 * 100 + 6, pass)) << pass;
  }
}

// `kraken profile --kernels`: a kernel trace (a real Kineto one here) attached to the live
// profile of the run's samples is stored with them, counted, and attached only once.
TEST_P(StoreIngestTest, AttachedEventsAreStoredWithTheSamples) {
  auto trace = ImportFile(BuiltinImporters(), testing::DataPath("kineto/hta/critical_path/simple_add/"
                                                                 "benchmark_result_493459_1694039959_trace.json.gz"));
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  Profile events = std::move((*trace)[0]);
  events.metadata.attributes = {{"kernel_traces", "1"}};
  // The tracer's device memory: a series of the events (600 samples: a full block and more).
  Series& memory = events.series.emplace_back();
  memory.metric = Metric::kCudaAllocatedBytes;
  memory.source_name = "CUDA device memory";
  memory.entity.gpu_index = 2;
  memory.entity.pid = 4242;
  for (int64_t i = 0; i < 600; ++i) memory.samples.push_back({1'000'000 + i, static_cast<double>(i * 4096)});
  std::string path = NewStore("store_attach");
  auto store = ProfileStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto id = (*store)->BeginProfile(LiveMetadata(), EightH100s());
  ASSERT_TRUE(id.ok());
  NodeShape shape;
  for (uint64_t pass = 0; pass < 10; ++pass)
    ASSERT_TRUE((*store)->AppendBatch(*id, MakeNodeBatch(shape, pass, PassTime(pass))).ok());
  ASSERT_TRUE((*store)->AttachEvents(*id, events).ok());
  Status again = (*store)->AttachEvents(*id, events);
  EXPECT_EQ(again.code(), StatusCode::kInvalidInput);
  EXPECT_NE(again.message().find("already has its events attached"), std::string::npos) << again.message();
  ASSERT_TRUE((*store)->Commit(*id).ok());

  auto info = (*store)->GetProfileInfo(*id);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->kernels, 79);
  EXPECT_EQ(info->runtime_calls, static_cast<int64_t>(events.runtime_calls.size()));
  EXPECT_GT(info->samples, 0);
  auto loaded = (*store)->LoadProfile(*id);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ASSERT_EQ(loaded->kernels.size(), events.kernels.size());
  EXPECT_EQ(loaded->Name(loaded->kernels[5].name), events.Name(events.kernels[5].name));
  EXPECT_EQ(loaded->kernels[5].start_ns, events.kernels[5].start_ns);
  EXPECT_EQ(loaded->memory_ops.size(), events.memory_ops.size());
  EXPECT_EQ(loaded->syncs.size(), events.syncs.size());
  EXPECT_EQ(loaded->metadata.attributes.at("kernel_traces"), "1");
  EXPECT_EQ(loaded->metadata.attributes.at("driver"), "590.48.01");
  EXPECT_FALSE(loaded->series.empty());
  EXPECT_EQ(loaded->devices.size(), 8u);  // the run's NVML devices, not the trace's
  const Series* cuda = nullptr;
  for (const Series& s : loaded->series)
    if (s.metric == Metric::kCudaAllocatedBytes) cuda = &s;
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->entity.gpu_index, 2);
  EXPECT_EQ(cuda->entity.pid, 4242);
  ASSERT_EQ(cuda->samples.size(), 600u);
  EXPECT_EQ(cuda->samples[599].time_ns, 1'000'599);
  EXPECT_EQ(cuda->samples[599].value, 599.0 * 4096);
}

TEST_P(StoreIngestTest, AbortLeavesNoRows) {
  std::string path = NewStore("store_abort");
  auto store = ProfileStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto id = (*store)->BeginProfile(LiveMetadata(), EightH100s());
  ASSERT_TRUE(id.ok());
  for (uint64_t pass = 0; pass < 600; ++pass)
    ASSERT_TRUE((*store)->AppendBatch(*id, MakeNodeBatch(NodeShape{}, pass, PassTime(pass))).ok());
  ASSERT_TRUE((*store)->Abort(*id).ok());
  for (const char* table : {"profiles", "devices", "series", "sample_blocks"})
    EXPECT_EQ(store::testing::CountRows(path, table), 0) << table;
  EXPECT_EQ((*store)->AppendBatch(*id, MakeNodeBatch(NodeShape{}, 0, 0)).code(), StatusCode::kNotFound);
}

TEST_P(StoreIngestTest, BatchNamingAMissingEntityIsRefusedWhole) {
  std::string path = NewStore("store_bad_batch");
  auto store = ProfileStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto id = (*store)->BeginProfile(LiveMetadata(), {});
  ASSERT_TRUE(id.ok());
  SampleBatch batch = MakeNodeBatch(NodeShape{.gpus = 1, .processes_per_gpu = 0}, 0, 5);
  batch.values.push_back({Metric::kGpuUtilPct, 7, 50, ""});
  Status status = (*store)->AppendBatch(*id, batch);
  EXPECT_EQ(status.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(status.message(), "batch value 25 names entity 7 of 1");
  // A node-wide value (entity -1) is kept as a series with an empty entity.
  SampleBatch node;
  node.time_ns = 10;
  node.values.push_back({Metric::kOther, -1, 3.5, "nvmlUnitGetFanSpeedInfo"});
  ASSERT_TRUE((*store)->AppendBatch(*id, node).ok());
  ASSERT_TRUE((*store)->Commit(*id).ok());
  auto loaded = (*store)->LoadProfile(*id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->series.size(), 1u);
  EXPECT_EQ(loaded->series[0].source_name, "nvmlUnitGetFanSpeedInfo");
  EXPECT_EQ(loaded->series[0].entity.gpu_index, -1);
  ASSERT_EQ(loaded->series[0].samples.size(), 1u);
  EXPECT_EQ(loaded->series[0].samples[0].value, 3.5);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreIngestTest, store::testing::AllStoreBackends(),
                         store::testing::StoreBackendParamName());

}  // namespace
}  // namespace kraken
