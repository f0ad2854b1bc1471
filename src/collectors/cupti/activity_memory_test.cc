// CUPTI's memory records (real CUpti_ActivityMemory4 structs) -> the counter events of each
// device's outstanding allocations -> kraken's kineto importer (the cuda_allocated_bytes
// series). Also DeviceMemoryTotals on its own.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "base/testing/test_data.h"
#include "collectors/cupti/activity_converter.h"
#include "collectors/cupti/device_memory.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

// A counter event as the converter emitted it (its views copied).
struct MemoryPoint {
  std::string category, name;
  int64_t device = -1, ts = 0, bytes = -1;
  bool operator==(const MemoryPoint&) const = default;
};

class MemoryPointSink final : public TraceEventSink {
 public:
  void Emit(const TraceEvent& e) override {
    if (e.phase != 'C') return;
    ASSERT_EQ(e.arg_count, 1);
    EXPECT_EQ(e.args[0].key, "bytes");
    points.push_back({std::string(e.category), std::string(e.name), e.pid, e.start_ns, e.args[0].int_value});
  }
  std::vector<MemoryPoint> points;
};

constexpr uint64_t kAt = 1'000'000;  // timestamps: kAt + n

CUpti_ActivityMemory4 MemoryRecord(CUpti_ActivityMemoryOperationType operation, uint32_t device, uint64_t address,
                                   uint64_t bytes, uint64_t at) {
  CUpti_ActivityMemory4 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = operation;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.deviceId = device;
  m.address = address;
  m.bytes = bytes;
  m.timestamp = kAt + at;
  m.contextId = 1;
  return m;
}
CUpti_ActivityMemory4 AllocRecord(uint32_t device, uint64_t address, uint64_t bytes, uint64_t at) {
  return MemoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, device, address, bytes, at);
}
CUpti_ActivityMemory4 FreeRecord(uint32_t device, uint64_t address, uint64_t bytes, uint64_t at) {
  return MemoryRecord(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, device, address, bytes, at);
}

// Two devices; a release of memory allocated before the trace; a stream-ordered pool's
// sub-allocation and its release; managed memory.
std::deque<CUpti_ActivityMemory4> MixedRecords() {
  std::deque<CUpti_ActivityMemory4> r;
  r.push_back(AllocRecord(0, 0xa000, 1000, 10));
  r.push_back(AllocRecord(1, 0xb000, 300, 20));
  r.push_back(AllocRecord(0, 0xc000, 500, 30));
  r.push_back(FreeRecord(0, 0x9000, 4000, 40));  // allocated before the trace started
  CUpti_ActivityMemory4 pooled = AllocRecord(0, 0xd000, 4096, 50);
  pooled.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  r.push_back(pooled);
  pooled = FreeRecord(0, 0xd000, 4096, 55);
  pooled.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  r.push_back(pooled);
  CUpti_ActivityMemory4 managed = AllocRecord(0, 0xe000, 1 << 20, 57);
  managed.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  r.push_back(managed);
  r.push_back(FreeRecord(0, 0xa000, 1000, 60));
  r.push_back(FreeRecord(1, 0xb000, 300, 70));
  return r;
}

TEST(ActivityMemoryTest, EachChangeIsACounterEventOfTheDevicesOutstandingBytes) {
  MemoryPointSink sink;
  ConverterOptions options;
  options.clock_offset_ns = 5;
  ActivityConverter converter(&sink, options);
  for (const CUpti_ActivityMemory4& m : MixedRecords()) converter.Convert(reinterpret_cast<const CUpti_Activity&>(m));
  auto point = [](int64_t device, uint64_t at, int64_t bytes) {
    return MemoryPoint{"cuda_memory", "CUDA device memory", device, static_cast<int64_t>(kAt + at) + 5, bytes};
  };
  const std::vector<MemoryPoint> expected = {point(0, 10, 1000), point(1, 20, 300), point(0, 30, 1500),
                                             point(0, 60, 500), point(1, 70, 0)};
  EXPECT_EQ(sink.points, expected);
  const ConversionCounts& c = converter.counts();
  EXPECT_EQ(c.memory_allocations, 3);
  EXPECT_EQ(c.memory_releases, 2);
  EXPECT_EQ(c.memory_unknown_releases, 1);
  EXPECT_EQ(c.memory_pool_records, 2);
  EXPECT_EQ(c.memory_other_kinds, 1);
  EXPECT_EQ(c.memory_reused_addresses, 0);
  EXPECT_EQ(c.other_records, 0);
}

TEST(ActivityMemoryTest, ARecordWithoutTimestampKeepsTheTotalButDrawsNoPoint) {
  MemoryPointSink sink;
  ActivityConverter converter(&sink, {});
  CUpti_ActivityMemory4 first = AllocRecord(0, 0xa000, 1000, 0);
  first.timestamp = 0;
  CUpti_ActivityMemory4 second = AllocRecord(0, 0xb000, 24, 5);
  for (const auto* m : {&first, &second}) converter.Convert(reinterpret_cast<const CUpti_Activity&>(*m));
  ASSERT_EQ(sink.points.size(), 1u);
  EXPECT_EQ(sink.points[0].bytes, 1024);
  EXPECT_EQ(converter.counts().without_timestamps, 1);
}

TEST(ActivityMemoryTest, TheTraceImportsAsOneCudaAllocationSeriesPerDevice) {
  std::string path = testing::MakeTempDir("activity_memory") + "/trace.json";
  std::string error;
  auto writer = KinetoTraceWriter::Open(path, 0, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  ActivityConverter converter(writer.get(), {});
  for (const CUpti_ActivityMemory4& m : MixedRecords()) converter.Convert(reinterpret_cast<const CUpti_Activity&>(m));
  converter.Finish(0);
  ASSERT_TRUE(writer->Finish(converter.FooterMembers()));
  auto imported = ImportFile(BuiltinImporters(), path);
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  const Profile& p = (*imported)[0];
  std::vector<const Series*> series;
  for (const Series& s : p.series)
    if (s.metric == Metric::kCudaAllocatedBytes) series.push_back(&s);
  ASSERT_EQ(series.size(), 2u);
  for (const Series* s : series) {
    ASSERT_TRUE(s->entity.gpu_index == 0 || s->entity.gpu_index == 1);
    std::vector<double> values;
    for (const Sample& sample : s->samples) values.push_back(sample.value);
    const std::vector<double> expected =
        s->entity.gpu_index == 0 ? std::vector<double>{1000, 1500, 500} : std::vector<double>{300, 0};
    EXPECT_EQ(values, expected);
    EXPECT_EQ(s->samples[0].time_ns, static_cast<int64_t>(kAt) + (s->entity.gpu_index == 0 ? 10 : 20));
  }
  EXPECT_EQ(p.import_counters.count("kineto_counter_events_ignored"), 0u);
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_allocations"), "3");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_releases_of_unknown_addresses"), "1");
  EXPECT_EQ(p.metadata.attributes.at("kraken_cupti_memory_pool_records_not_counted"), "2");
  EXPECT_NE(p.metadata.attributes.at("kraken_cupti_memory_counted").find("not counted: stream-ordered pools"),
            std::string::npos);
}

TEST(DeviceMemoryTotalsTest, MemoryIsBoundedByTheLiveAllocations) {
  DeviceMemoryTotals totals;
  for (uint64_t i = 0; i < 10'000; ++i) {
    EXPECT_EQ(totals.Allocate(0, 0x1000 + i * 256, 256).total, 256);
    EXPECT_EQ(totals.Release(0x1000 + i * 256).total, 0);
  }
  EXPECT_EQ(totals.live_allocations(), 0u);
  EXPECT_FALSE(totals.Release(0x42).known);
  EXPECT_EQ(totals.total(0), 0);
  // An address allocated again without its release: the old bytes are not counted twice.
  totals.Allocate(0, 0x5000, 100);
  DeviceMemoryTotals::Change again = totals.Allocate(1, 0x5000, 40);
  EXPECT_TRUE(again.replaced);
  EXPECT_EQ(again.total, 40);
  EXPECT_EQ(totals.total(0), 0);
  EXPECT_EQ(totals.live_allocations(), 1u);
  DeviceMemoryTotals::Change freed = totals.Release(0x5000);
  EXPECT_EQ(freed.device, 1u);
  EXPECT_EQ(freed.total, 0);
}

}  // namespace
}  // namespace kraken::cupti
