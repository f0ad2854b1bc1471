// CUPTI activity records (the real structs of the toolkit's headers) -> the tracer's Kineto
// trace -> kraken's kineto importer. The round trip test rebuilds the CUPTI records behind
// a real PyTorch-profiler trace (the PARAM simple_add run on an A100 in shared/data) and
// checks that the tracer writes what Kineto wrote: same kernels, copies, sets, launches and
// synchronizations, to the nanosecond.
#include "collectors/cupti/activity_converter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include "base/testing/test_data.h"
#include "importers/registry.h"

namespace kraken::cupti {
namespace {

// Owns records of several CUPTI types in conversion order (and the strings they point to).
class Records {
 public:
  template <typename T>
  T& Add(CUpti_ActivityKind kind) {
    auto& storage = std::get<std::deque<T>>(storage_);
    T& record = storage.emplace_back();
    record = T{};
    record.kind = kind;
    order_.push_back(reinterpret_cast<const CUpti_Activity*>(&record));
    return record;
  }
  const char* Keep(std::string text) { return strings_.emplace_back(std::move(text)).c_str(); }
  const std::vector<const CUpti_Activity*>& order() const { return order_; }

 private:
  std::tuple<std::deque<CUpti_ActivityKernel10>, std::deque<CUpti_ActivityMemcpy6>,
             std::deque<CUpti_ActivityMemcpyPtoP4>, std::deque<CUpti_ActivityMemset4>, std::deque<CUpti_ActivityAPI>,
             std::deque<CUpti_ActivitySynchronization2>, std::deque<CUpti_ActivityMarker2>,
             std::deque<CUpti_ActivityDevice5>, std::deque<CUpti_ActivityContext3>>
      storage_;
  std::deque<std::string> strings_;
  std::vector<const CUpti_Activity*> order_;
};

struct Converted {
  Profile profile;
  ConversionCounts counts;
};

// Converts every record, finishes at `end_ns` and imports the written trace.
Converted ConvertAndImport(const Records& records, ConverterOptions options = {}, int64_t end_ns = 0) {
  std::string path = testing::MakeTempDir("activity_converter") + "/trace.json";
  std::string error;
  auto writer = KinetoTraceWriter::Open(path, 0, {}, &error);
  EXPECT_NE(writer, nullptr) << error;
  Converted out;
  if (writer == nullptr) return out;
  ActivityConverter converter(writer.get(), std::move(options));
  for (const CUpti_Activity* record : records.order()) converter.Convert(*record);
  converter.Finish(end_ns);
  EXPECT_TRUE(writer->Finish(converter.FooterMembers()));
  out.counts = converter.counts();
  auto imported = ImportFile(BuiltinImporters(), path);
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  if (imported.ok() && imported->size() == 1) out.profile = std::move((*imported)[0]);
  return out;
}

uint32_t RuntimeCbid(std::string_view name) {
  for (const ApiName& api : ApiNameTable(ApiDomain::kRuntime))
    if (StripVersionSuffix(api.name) == name) return api.cbid;
  ADD_FAILURE() << "no runtime cbid named " << name;
  return 0;
}

CUpti_ActivitySynchronizationType SyncType(std::string_view name) {
  if (name == "Event Sync") return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  if (name == "Stream Wait Event") return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  if (name == "Stream Sync") return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  if (name == "Context Sync") return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  ADD_FAILURE() << "unknown sync " << name;
  return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN;
}

// The CUPTI records a Kineto trace was made of, as CUPTI 13 would deliver them.
void AddRecordsOf(const Profile& trace, Records& records) {
  const DeviceInfo& device = trace.devices.at(0);
  auto& d = records.Add<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  d.id = static_cast<uint32_t>(device.index);
  d.name = records.Keep(device.name);
  d.numMultiprocessors = static_cast<uint32_t>(device.sm_count);
  d.globalMemorySize = static_cast<uint64_t>(device.memory_bytes);
  d.computeCapabilityMajor = static_cast<uint32_t>(device.compute_major);
  d.computeCapabilityMinor = static_cast<uint32_t>(device.compute_minor);
  d.maxWarpsPerMultiprocessor = static_cast<uint32_t>(device.max_threads_per_sm / 32);
  auto& c = records.Add<CUpti_ActivityContext3>(CUPTI_ACTIVITY_KIND_CONTEXT);
  c.contextId = 1;
  c.deviceId = d.id;
  for (const Kernel& k : trace.kernels) {
    auto& r = records.Add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    r.name = records.Keep(std::string(trace.Name(k.name)));
    r.start = static_cast<uint64_t>(k.start_ns);
    r.end = static_cast<uint64_t>(k.end_ns());
    r.deviceId = static_cast<uint32_t>(k.device);
    r.contextId = 1;
    r.streamId = static_cast<uint32_t>(k.stream);
    r.correlationId = static_cast<uint32_t>(k.correlation_id);
    r.gridX = k.grid[0], r.gridY = k.grid[1], r.gridZ = k.grid[2];
    r.blockX = k.block[0], r.blockY = k.block[1], r.blockZ = k.block[2];
    r.registersPerThread = static_cast<uint16_t>(k.registers_per_thread);
    r.staticSharedMemory = static_cast<int32_t>(k.shared_memory_bytes);
  }
  for (const MemoryOp& m : trace.memory_ops) {
    if (m.kind == MemoryOpKind::kMemset) {
      auto& r = records.Add<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
      r.bytes = static_cast<uint64_t>(m.bytes), r.start = m.start_ns, r.end = m.end_ns();
      r.deviceId = m.device, r.contextId = 1, r.streamId = static_cast<uint32_t>(m.stream);
      r.correlationId = static_cast<uint32_t>(m.correlation_id);
      r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
      continue;
    }
    auto& r = records.Add<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    EXPECT_EQ(m.direction, CopyDirection::kHostToDevice);  // all of simple_add's copies
    r.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    r.srcKind = m.pageable_host_memory ? CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE : CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    r.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    r.bytes = static_cast<uint64_t>(m.bytes), r.start = m.start_ns, r.end = m.end_ns();
    r.deviceId = m.device, r.contextId = 1, r.streamId = static_cast<uint32_t>(m.stream);
    r.correlationId = static_cast<uint32_t>(m.correlation_id);
  }
  for (const RuntimeCall& call : trace.runtime_calls) {
    auto& r = records.Add<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    r.cbid = RuntimeCbid(trace.Name(call.name));
    r.start = call.start_ns, r.end = call.end_ns();
    r.processId = static_cast<uint32_t>(call.pid), r.threadId = static_cast<uint32_t>(call.tid);
    r.correlationId = static_cast<uint32_t>(call.correlation_id);
  }
  for (const SyncEvent& s : trace.syncs) {
    auto& r = records.Add<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    r.type = SyncType(trace.Name(s.name));
    r.start = s.start_ns, r.end = s.start_ns + s.duration_ns;
    r.contextId = 1;
    r.streamId = s.stream < 0 ? 0 : static_cast<uint32_t>(s.stream);
  }
}

TEST(ActivityConverterTest, RebuildsTheKinetoTraceOfARealRunFromItsCuptiRecords) {
  auto original = ImportFile(BuiltinImporters(),
                             testing::DataPath("kineto/hta/critical_path/simple_add/"
                                               "benchmark_result_493459_1694039959_trace.json.gz"));
  ASSERT_TRUE(original.ok()) << original.status().message();
  const Profile& trace = (*original)[0];
  ASSERT_EQ(trace.kernels.size(), 79u);
  Records records;
  AddRecordsOf(trace, records);
  Converted out = ConvertAndImport(records);
  const Profile& p = out.profile;

  ASSERT_EQ(p.kernels.size(), trace.kernels.size());
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const Kernel& got = p.kernels[i];
    const Kernel& want = trace.kernels[i];
    EXPECT_EQ(p.Name(got.name), trace.Name(want.name)) << i;
    EXPECT_EQ(got.start_ns, want.start_ns) << i;
    EXPECT_EQ(got.duration_ns, want.duration_ns) << i;
    EXPECT_EQ(got.device, want.device) << i;
    EXPECT_EQ(got.stream, want.stream) << i;
    EXPECT_EQ(got.correlation_id, want.correlation_id) << i;
    EXPECT_EQ(got.grid, want.grid) << i;
    EXPECT_EQ(got.block, want.block) << i;
    EXPECT_EQ(got.registers_per_thread, want.registers_per_thread) << i;
    EXPECT_EQ(got.shared_memory_bytes, want.shared_memory_bytes) << i;
    // Kineto computes these in single precision and prints 6 decimals.
    EXPECT_NEAR(got.blocks_per_sm, want.blocks_per_sm, 1e-5 + 1e-6 * want.blocks_per_sm) << i;
    EXPECT_NEAR(got.warps_per_sm, want.warps_per_sm, 1e-5 + 1e-6 * want.warps_per_sm) << i;
  }
  ASSERT_EQ(p.memory_ops.size(), trace.memory_ops.size());
  for (size_t i = 0; i < p.memory_ops.size(); ++i) {
    EXPECT_EQ(p.Name(p.memory_ops[i].name), trace.Name(trace.memory_ops[i].name)) << i;
    EXPECT_EQ(p.memory_ops[i].bytes, trace.memory_ops[i].bytes) << i;
    EXPECT_EQ(p.memory_ops[i].kind, trace.memory_ops[i].kind) << i;
    EXPECT_EQ(p.memory_ops[i].direction, trace.memory_ops[i].direction) << i;
    EXPECT_EQ(p.memory_ops[i].pageable_host_memory, trace.memory_ops[i].pageable_host_memory) << i;
    EXPECT_EQ(p.memory_ops[i].start_ns, trace.memory_ops[i].start_ns) << i;
    EXPECT_EQ(p.memory_ops[i].correlation_id, trace.memory_ops[i].correlation_id) << i;
  }
  // Launching and waiting calls are kept; cudaMalloc, cudaStreamIsCapturing & co. are not.
  std::vector<const RuntimeCall*> selected;
  for (const RuntimeCall& call : trace.runtime_calls)
    if (RecordedByDefault(trace.Name(call.name))) selected.push_back(&call);
  ASSERT_EQ(selected.size(), 155u);  // 79 launches, 34 waits, 16+5 copies/sets, 16+5 syncs
  ASSERT_EQ(p.runtime_calls.size(), selected.size());
  EXPECT_EQ(out.counts.api_calls_skipped, static_cast<int64_t>(trace.runtime_calls.size() - selected.size()));
  for (size_t i = 0; i < selected.size(); ++i) {
    EXPECT_EQ(p.Name(p.runtime_calls[i].name), trace.Name(selected[i]->name)) << i;
    EXPECT_EQ(p.runtime_calls[i].start_ns, selected[i]->start_ns) << i;
    EXPECT_EQ(p.runtime_calls[i].duration_ns, selected[i]->duration_ns) << i;
    EXPECT_EQ(p.runtime_calls[i].correlation_id, selected[i]->correlation_id) << i;
    EXPECT_EQ(p.runtime_calls[i].tid, selected[i]->tid) << i;
  }
  ASSERT_EQ(p.syncs.size(), trace.syncs.size());
  for (size_t i = 0; i < p.syncs.size(); ++i) {
    EXPECT_EQ(p.Name(p.syncs[i].name), trace.Name(trace.syncs[i].name)) << i;
    EXPECT_EQ(p.syncs[i].duration_ns, trace.syncs[i].duration_ns) << i;
    EXPECT_EQ(p.syncs[i].device, 0) << i;
    if (p.Name(p.syncs[i].name) == "Stream Sync") {
      EXPECT_EQ(p.syncs[i].stream, trace.syncs[i].stream) << i;
    }
  }
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(p.devices[0].sm_count, 108);
  EXPECT_EQ(p.devices[0].max_threads_per_sm, 2048);
  EXPECT_EQ(out.counts.kernels, 79);
}

TEST(ActivityConverterTest, MangledNamesAreDemangledAndUntimedRecordsCounted) {
  Records records;
  auto& k = records.Add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.name = "_Z6vecAddPfS_S_i";
  k.start = 5000, k.end = 7500, k.streamId = 7, k.correlationId = 3;
  auto& again = records.Add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  again = k;  // the same kernel: CUPTI shares the name pointer
  again.start = 8000, again.end = 8100, again.correlationId = 4;
  auto& untimed = records.Add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  untimed.name = "_Z6vecAddPfS_S_i";
  untimed.start = 0, untimed.end = 0;  // CUPTI had no device memory to time it
  Converted out = ConvertAndImport(records);
  ASSERT_EQ(out.profile.kernels.size(), 2u);
  EXPECT_EQ(out.profile.Name(out.profile.kernels[0].name), "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(out.profile.Name(out.profile.kernels[1].name), "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(out.profile.kernels[0].duration_ns, 2500);
  EXPECT_EQ(out.counts.without_timestamps, 1);
  // No device record: the per-SM estimates are left out rather than guessed.
  EXPECT_EQ(out.profile.kernels[0].blocks_per_sm, -1);
}

TEST(ActivityConverterTest, NvtxRangesAreAnnotationsOnTheirThreadAndOnTheGpu) {
  Records records;
  auto marker = [&](uint32_t flags, uint32_t id, uint64_t ts, const char* name) {
    auto& m = records.Add<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
    m.flags = static_cast<CUpti_ActivityFlag>(flags);
    m.id = id;
    m.timestamp = ts;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.processId = 100;
    m.objectId.pt.threadId = 101;
    m.name = name;
  };
  auto launch = [&](uint32_t correlation, uint64_t start, uint32_t thread) {
    auto& a = records.Add<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    a.cbid = RuntimeCbid("cudaLaunchKernel");
    a.start = start, a.end = start + 10, a.processId = 100, a.threadId = thread, a.correlationId = correlation;
  };
  auto kernel = [&](uint32_t correlation, uint32_t stream, uint64_t start, uint64_t end) {
    auto& k = records.Add<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.name = "step_kernel";
    k.streamId = stream, k.start = start, k.end = end, k.correlationId = correlation;
  };
  // GPU records come before the markers, as CUPTI's separate buffers may deliver them.
  kernel(1, 7, 2000, 3000);    // launched inside "forward" on thread 101
  kernel(2, 9, 2500, 4500);    // also inside, on another stream
  kernel(3, 7, 9000, 9500);    // launched after the range ended
  kernel(4, 7, 3100, 3200);    // launched inside the time span but by another thread
  launch(1, 1100, 101);
  launch(2, 1200, 101);
  launch(3, 8000, 101);
  launch(4, 1300, 555);
  marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 1000, "forward");
  marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 4000, nullptr);
  marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 99, 4100, nullptr);  // its start was never seen
  marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 2, 4200, "checkpoint");
  marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 3, 7000, "backward");  // still open at the end
  Converted out = ConvertAndImport(records, {}, /*end_ns=*/10000);
  const Profile& p = out.profile;
  std::vector<const CpuOp*> cpu, gpu;
  for (const CpuOp& op : p.cpu_ops)
    (op.category == CpuOpCategory::kGpuUserAnnotation ? gpu : cpu).push_back(&op);
  ASSERT_EQ(cpu.size(), 2u);
  EXPECT_EQ(p.Name(cpu[0]->name), "forward");
  EXPECT_EQ(cpu[0]->start_ns, 1000);
  EXPECT_EQ(cpu[0]->duration_ns, 3000);
  EXPECT_EQ(cpu[0]->tid, 101);
  EXPECT_EQ(p.Name(cpu[1]->name), "backward");
  EXPECT_EQ(cpu[1]->duration_ns, 3000);  // closed at end_ns
  ASSERT_EQ(gpu.size(), 3u);  // forward on streams 7 and 9, backward on stream 7
  EXPECT_EQ(p.Name(gpu[0]->name), "forward");
  EXPECT_EQ(gpu[0]->tid, 7);
  EXPECT_EQ(gpu[0]->start_ns, 2000);
  EXPECT_EQ(gpu[0]->duration_ns, 1000);  // kernel 4 (another thread) is not part of it
  EXPECT_EQ(gpu[1]->tid, 9);
  EXPECT_EQ(gpu[1]->start_ns, 2500);
  EXPECT_EQ(gpu[1]->duration_ns, 2000);
  EXPECT_EQ(p.Name(gpu[2]->name), "backward");
  EXPECT_EQ(gpu[2]->start_ns, 9000);
  EXPECT_EQ(out.counts.nvtx_ranges, 1);
  EXPECT_EQ(out.counts.nvtx_open_at_end, 1);
  EXPECT_EQ(out.counts.nvtx_unmatched_ends, 1);
  EXPECT_EQ(out.counts.nvtx_marks, 1);
  EXPECT_EQ(out.counts.gpu_annotations, 3);
}

TEST(ActivityConverterTest, ApiSelectionAndNamesOfUnknownIds) {
  Records records;
  auto api = [&](CUpti_ActivityKind kind, uint32_t cbid, uint32_t correlation) {
    auto& a = records.Add<CUpti_ActivityAPI>(kind);
    a.cbid = cbid, a.start = 100 * correlation, a.end = 100 * correlation + 50, a.correlationId = correlation;
  };
  api(CUPTI_ACTIVITY_KIND_RUNTIME, RuntimeCbid("cudaGetDevice"), 1);
  api(CUPTI_ACTIVITY_KIND_RUNTIME, RuntimeCbid("cudaLaunchKernel"), 2);
  api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 3);
  api(CUPTI_ACTIVITY_KIND_RUNTIME, 99999, 4);  // an id newer than these headers
  ConverterOptions all;
  all.api = ApiRecording::kAll;
  all.api_name_fallback = [](ApiDomain, uint32_t cbid) { return "cudaFutureCall_v13050#" + std::to_string(cbid); };
  Converted everything = ConvertAndImport(records, all);
  ASSERT_EQ(everything.profile.runtime_calls.size(), 4u);
  EXPECT_EQ(everything.profile.Name(everything.profile.runtime_calls[0].name), "cudaGetDevice");
  EXPECT_TRUE(everything.profile.runtime_calls[2].is_driver_api);
  EXPECT_EQ(everything.profile.Name(everything.profile.runtime_calls[2].name), "cuLaunchKernel");
  EXPECT_EQ(everything.profile.Name(everything.profile.runtime_calls[3].name), "cudaFutureCall_v13050#99999");
  Converted launches = ConvertAndImport(records);
  ASSERT_EQ(launches.profile.runtime_calls.size(), 2u);
  EXPECT_EQ(launches.counts.api_calls_skipped, 2);
  EXPECT_EQ(launches.counts.driver_calls, 1);
}

TEST(ActivityConverterTest, PeerCopiesNameBothDevices) {
  Records records;
  auto& m = records.Add<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  m.srcKind = m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 1 << 30, m.start = 1000, m.end = 1000 + 20'000'000;
  m.deviceId = 1, m.srcDeviceId = 1, m.dstDeviceId = 3, m.streamId = 20, m.correlationId = 8;
  Converted out = ConvertAndImport(records);
  ASSERT_EQ(out.profile.memory_ops.size(), 1u);
  const MemoryOp& op = out.profile.memory_ops[0];
  EXPECT_EQ(out.profile.Name(op.name), "Memcpy PtoP (Device -> Device)");
  EXPECT_EQ(op.direction, CopyDirection::kPeerToPeer);
  EXPECT_EQ(op.bytes, 1 << 30);
  EXPECT_EQ(op.device, 1);
  EXPECT_EQ(op.duration_ns, 20'000'000);
}

}  // namespace
}  // namespace kraken::cupti
