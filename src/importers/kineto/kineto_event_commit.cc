// EventParser's commit step: a fully read RawEvent becomes the model records of its phase
// and category (kernels, memory operations, CPU ops, runtime calls, syncs, profiler
// ranges, allocator samples), or a count of what was skipped and why.
#include <cstdint>
#include <string>

#include "base/text.h"
#include "importers/kineto/kineto_event_parser_impl.h"
#include "importers/kineto/kineto_range_counters.h"
#include "importers/kineto/kineto_schema.h"

namespace kraken::kineto {
namespace {

CopyDirection DirectionFromText(std::string_view text) {
  if (text.find("HtoD") != std::string_view::npos || text.find("HOST_TO_DEVICE") != std::string_view::npos)
    return CopyDirection::kHostToDevice;
  if (text.find("DtoH") != std::string_view::npos || text.find("DEVICE_TO_HOST") != std::string_view::npos)
    return CopyDirection::kDeviceToHost;
  if (text.find("DtoD") != std::string_view::npos || text.find("DEVICE_TO_DEVICE") != std::string_view::npos)
    return CopyDirection::kDeviceToDevice;
  if (text.find("HtoH") != std::string_view::npos) return CopyDirection::kHostToHost;
  if (text.find("PtoP") != std::string_view::npos || text.find("Peer") != std::string_view::npos)
    return CopyDirection::kPeerToPeer;
  return CopyDirection::kUnknown;
}

}  // namespace

void EventParser::Impl::Commit() {
  if (ev.ph.size() != 1) {
    ++malformed;
    return;
  }
  switch (ev.ph[0]) {
    case 'X':
      CommitComplete();
      return;
    case 'i':
    case 'I':
      CommitInstant();
      return;
    case 's':
    case 't':
    case 'f':
      ++flows;
      return;
    case 'M':
      ++metadata_events;
      return;
    case 'C':
      CommitCounter();
      return;
    default:
      Count("kineto_unsupported_phase_events");
      return;
  }
}

void EventParser::Impl::CommitComplete() {
  std::string_view cat = ev.cat;
  bool is_kernel = cat == kCatKernel || cat == kCatKernelLegacy;
  bool is_memcpy = cat == kCatMemcpy || cat == kCatMemcpyLegacy;
  bool is_memset = cat == kCatMemset || cat == kCatMemsetLegacy;
  if (cat == kCatPythonFunction) {
    ++python_functions;
    return;
  }
  if (!CheckTimes()) return;
  if (cat == kCatMtiaDeviceOp) {
    // MTIA device ops: DMA transfers are the accelerator's memcpy, the rest kernels.
    // Their tid is a hardware queue, not a stream: without args.stream the stream is
    // unknown (HTA leaves such ops out; kraken keeps them, on stream -1).
    if (ev.stream < 0) ev.tid_is_number = false;
    if (StartsWith(ev.name, "dma")) {
      is_memcpy = true;
    } else {
      is_kernel = true;
    }
  }
  if (is_kernel) return CommitKernel();
  if (is_memcpy) return CommitMemoryOp(MemoryOpKind::kMemcpy);
  if (is_memset) return CommitMemoryOp(MemoryOpKind::kMemset);
  if (cat == kCatCpuOp || cat == kCatCpuOpLegacy) return CommitCpuOp(CpuOpCategory::kOperator);
  if (cat == kCatUserAnnotation) return CommitCpuOp(CpuOpCategory::kUserAnnotation);
  if (cat == kCatGpuUserAnnotation) return CommitCpuOp(CpuOpCategory::kGpuUserAnnotation);
  if (cat == kCatCudaRuntime || cat == kCatRuntimeLegacy || cat == kCatMtiaRuntime || cat == kCatXpuRuntime)
    return CommitRuntime(false);
  if (cat == kCatCudaDriver || cat == kCatXpuDriver) return CommitRuntime(true);
  if (cat == kCatCudaSync) return CommitSync();
  if (cat == kCatProfilerRange) return CommitProfilerRange();
  if (cat == kCatTrace) {
    profile->metadata.attributes["profiler_span_ns"] = std::to_string(ev.dur_ns);
    return;
  }
  Count("kineto_ignored_category:" + std::string(cat.empty() ? "<none>" : cat));
}

void EventParser::Impl::CommitInstant() {
  if (ev.name != kMemoryEventName) {
    Count("kineto_instant_events_ignored");
    return;
  }
  if (!ev.has_ts) {
    ++missing_timestamp;
    return;
  }
  // Device memory samples of the framework allocator; "Device Id" -1 is host memory.
  if (ev.device_id < 0 || ev.device_id == INT64_MIN) return;
  if (ev.total_allocated < 0) {
    Count("kineto_memory_events_without_totals");
    return;
  }
  const auto device = static_cast<int32_t>(ev.device_id);
  if (ev.total_allocated >= 0)
    AddSample(Metric::kAllocatorAllocatedBytes, device, "Total Allocated", static_cast<double>(ev.total_allocated));
  if (ev.total_reserved >= 0)
    AddSample(Metric::kAllocatorReservedBytes, device, "Total Reserved", static_cast<double>(ev.total_reserved));
}

// A sample of `metric` on `device` at the event's time, into the device's series of it.
void EventParser::Impl::AddSample(Metric metric, int32_t device, std::string_view source_name, double value) {
  Series* series = nullptr;
  for (auto& s : profile->series) {
    if (s.metric == metric && s.entity.gpu_index == device) series = &s;
  }
  if (series == nullptr) {
    series = &profile->series.emplace_back();
    series->metric = metric;
    series->source_name = std::string(source_name);
    series->entity.gpu_index = device;
  }
  series->samples.push_back({ev.ts_ns, value});
}

// Counter events: the device memory of kraken's CUPTI tracer; others are counted.
void EventParser::Impl::CommitCounter() {
  if (ev.cat != kCatCudaMemory || ev.name != kCudaMemoryCounterName) {
    Count("kineto_counter_events_ignored");
    return;
  }
  if (!ev.has_ts) {
    ++missing_timestamp;
    return;
  }
  const int32_t device = DeviceOf();
  if (device < 0 || ev.bytes < 0) {
    Count("kineto_cuda_memory_bad_values");
    return;
  }
  AddSample(Metric::kCudaAllocatedBytes, device, kCudaMemoryCounterName, static_cast<double>(ev.bytes));
}

bool EventParser::Impl::CheckTimes() {
  if (!ev.has_ts) {
    ++missing_timestamp;
    return false;
  }
  if (!ev.has_dur) ev.dur_ns = 0;
  if (ev.dur_ns < 0) {
    ++negative_duration;
    ev.dur_ns = 0;
  }
  return true;
}

int32_t EventParser::Impl::DeviceOf() const {
  if (ev.device >= 0) return static_cast<int32_t>(ev.device);
  if (ev.pid_is_number && ev.pid >= 0 && ev.pid < 1024) return static_cast<int32_t>(ev.pid);
  return -1;
}

int64_t EventParser::Impl::StreamOf() const {
  if (ev.stream >= 0) return ev.stream;
  if (ev.tid_is_number) return ev.tid;
  // Legacy traces name GPU threads "stream 7".
  if (StartsWith(ev.tid_text, "stream ")) {
    if (auto n = ParseInt64(ev.tid_text.substr(7))) return *n;
  }
  return -1;
}

void EventParser::Impl::CommitKernel() {
  Kernel k;
  k.name = profile->strings.Intern(ev.name);
  k.start_ns = ev.ts_ns;
  k.duration_ns = ev.dur_ns;
  k.device = DeviceOf();
  k.stream = StreamOf();
  k.correlation_id = ev.correlation;
  k.external_id = ev.external_id;
  k.grid = ev.grid;
  k.block = ev.block;
  k.registers_per_thread = static_cast<int32_t>(ev.registers);
  k.shared_memory_bytes = ev.shared_memory;
  k.blocks_per_sm = ev.blocks_per_sm;
  k.warps_per_sm = ev.warps_per_sm;
  k.est_achieved_occupancy_pct = ev.occupancy;
  if (!ev.collective_name.empty() || ev.in_nelems >= 0) {
    CollectiveInfo c;
    c.collective_name = std::string(ev.collective_name);
    c.in_msg_nelems = ev.in_nelems;
    c.out_msg_nelems = ev.out_nelems;
    c.group_size = ev.group_size;
    c.dtype = std::string(ev.dtype);
    c.process_group_name = std::string(ev.pg_name);
    c.process_group_description = std::string(ev.pg_desc);
    c.process_group_ranks = std::string(ev.pg_ranks);
    k.collective_index = static_cast<int32_t>(profile->collectives.size());
    profile->collectives.push_back(std::move(c));
  }
  profile->kernels.push_back(k);
}

void EventParser::Impl::CommitMemoryOp(MemoryOpKind kind) {
  MemoryOp m;
  m.name = profile->strings.Intern(ev.name);
  m.start_ns = ev.ts_ns;
  m.duration_ns = ev.dur_ns;
  m.device = DeviceOf();
  m.stream = StreamOf();
  m.correlation_id = ev.correlation;
  m.bytes = ev.bytes >= 0 ? ev.bytes : ev.size;
  m.kind = kind;
  if (kind == MemoryOpKind::kMemcpy) {
    m.direction = DirectionFromText(ev.name);
    if (m.direction == CopyDirection::kUnknown) m.direction = DirectionFromText(ev.kind);
    if (m.direction == CopyDirection::kUnknown) m.direction = DirectionFromText(ev.direction);
    m.pageable_host_memory = ev.name.find("Pageable") != std::string_view::npos;
  }
  profile->memory_ops.push_back(m);
}

void EventParser::Impl::CommitCpuOp(CpuOpCategory category) {
  CpuOp op;
  op.name = profile->strings.Intern(ev.name);
  op.start_ns = ev.ts_ns;
  op.duration_ns = ev.dur_ns;
  op.pid = ev.pid;
  op.tid = category == CpuOpCategory::kGpuUserAnnotation ? StreamOf() : ev.tid;
  op.external_id = ev.external_id;
  op.category = category;
  profile->cpu_ops.push_back(op);
  if (category != CpuOpCategory::kGpuUserAnnotation && StartsWith(ev.name, kProfilerStepPrefix)) {
    StepAnnotation step;
    if (auto n = ParseInt64(ev.name.substr(kProfilerStepPrefix.size()))) step.step_number = *n;
    step.start_ns = ev.ts_ns;
    step.duration_ns = ev.dur_ns;
    step.tid = ev.tid;
    profile->steps.push_back(step);
  }
}

void EventParser::Impl::CommitRuntime(bool driver) {
  RuntimeCall call;
  call.name = profile->strings.Intern(ev.name);
  call.start_ns = ev.ts_ns;
  call.duration_ns = ev.dur_ns;
  call.pid = ev.pid;
  call.tid = ev.tid;
  call.correlation_id = ev.correlation;
  call.external_id = ev.external_id;
  call.is_driver_api = driver;
  profile->runtime_calls.push_back(call);
}

void EventParser::Impl::CommitSync() {
  SyncEvent sync;
  sync.name = profile->strings.Intern(ev.name);
  sync.start_ns = ev.ts_ns;
  sync.duration_ns = ev.dur_ns;
  sync.device = DeviceOf();
  sync.stream = ev.stream;
  profile->syncs.push_back(sync);
}

void EventParser::Impl::CommitProfilerRange() {
  ProfilerRange range;
  range.name = profile->strings.Intern(ev.name);
  range.start_ns = ev.ts_ns;
  range.duration_ns = ev.dur_ns;
  for (const auto& [key, value] : ev.numeric_args) range.raw_counters[std::string(key)] = value;
  range.counters_index = static_cast<int32_t>(profile->kernel_counters.size());
  profile->kernel_counters.push_back(RangeCountersFromArgs(ev.numeric_args));
  // kraken's tracer names the launch (CUPTI correlation id): its kernel gets the counters.
  if (ev.correlation >= 0) {
    range_counters_by_correlation[ev.correlation] = range.counters_index;
    launch_ranges.push_back({ev.correlation, profile->profiler_ranges.size(), DeviceOf()});
  }
  profile->profiler_ranges.push_back(std::move(range));
}

}  // namespace kraken::kineto
