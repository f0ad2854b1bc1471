#include "collectors/cupti/activity_converter.h"

#include <cxxabi.h>

#include <cstddef>
#include <cstdlib>

namespace kraken::cupti {
namespace {

// The fields read below sit where they did in the oldest records kraken reads (CUDA 11.6:
// Kernel7, Memcpy5, MemcpyPtoP3, Memset3, Synchronization, Device4; Marker2 and API are
// unchanged since CUDA 8), so a record from an older libcupti reads the same.
#define KRAKEN_SAME_FIELD(New, Old, field) \
  static_assert(offsetof(New, field) == offsetof(Old, field), #New "::" #field " moved since " #Old)
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, registersPerThread);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, start);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, end);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, deviceId);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, contextId);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, streamId);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, gridX);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, blockZ);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, staticSharedMemory);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, dynamicSharedMemory);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, localMemoryPerThread);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, correlationId);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, name);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, graphNodeId);
KRAKEN_SAME_FIELD(CUpti_ActivityKernel10, CUpti_ActivityKernel7, graphId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, copyKind);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, srcKind);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, dstKind);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, bytes);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, start);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, end);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, deviceId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, contextId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, streamId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpy6, CUpti_ActivityMemcpy5, correlationId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemcpyPtoP3, srcDeviceId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemcpyPtoP3, dstDeviceId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemcpyPtoP3, correlationId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemcpyPtoP4, CUpti_ActivityMemcpyPtoP3, streamId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemset4, CUpti_ActivityMemset3, bytes);
KRAKEN_SAME_FIELD(CUpti_ActivityMemset4, CUpti_ActivityMemset3, start);
KRAKEN_SAME_FIELD(CUpti_ActivityMemset4, CUpti_ActivityMemset3, streamId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemset4, CUpti_ActivityMemset3, correlationId);
KRAKEN_SAME_FIELD(CUpti_ActivityMemset4, CUpti_ActivityMemset3, memoryKind);
KRAKEN_SAME_FIELD(CUpti_ActivitySynchronization2, CUpti_ActivitySynchronization, cudaEventId);
KRAKEN_SAME_FIELD(CUpti_ActivitySynchronization2, CUpti_ActivitySynchronization, streamId);
KRAKEN_SAME_FIELD(CUpti_ActivitySynchronization2, CUpti_ActivitySynchronization, contextId);
KRAKEN_SAME_FIELD(CUpti_ActivityDevice5, CUpti_ActivityDevice4, numMultiprocessors);
KRAKEN_SAME_FIELD(CUpti_ActivityDevice5, CUpti_ActivityDevice4, maxThreadsPerBlock);
KRAKEN_SAME_FIELD(CUpti_ActivityDevice5, CUpti_ActivityDevice4, computeCapabilityMinor);
KRAKEN_SAME_FIELD(CUpti_ActivityDevice5, CUpti_ActivityDevice4, id);
KRAKEN_SAME_FIELD(CUpti_ActivityDevice5, CUpti_ActivityDevice4, name);
KRAKEN_SAME_FIELD(CUpti_ActivityContext3, CUpti_ActivityContext, deviceId);
#undef KRAKEN_SAME_FIELD

// Kineto's spellings (libkineto's memcpy/memory kind strings).
std::string_view CopyKindName(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "Unknown";
  }
}

std::string_view MemoryKindName(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "Array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "Managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "Device Static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "Managed Static";
    default: return "Unknown";
  }
}

std::string_view SyncName(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "Context Sync";
    default: return "Unknown Sync";
  }
}

bool Timed(uint64_t start, uint64_t end) { return start != 0 && end >= start; }

}  // namespace

ActivityConverter::ActivityConverter(TraceEventSink* sink, ConverterOptions options)
    : sink_(sink), options_(std::move(options)), projector_(options_.max_projection_records) {}

TraceEvent& ActivityConverter::Begin(char phase, std::string_view category, std::string_view name, int64_t pid,
                                     int64_t tid, uint64_t start, uint64_t end) {
  event_.Clear();
  event_.phase = phase;
  event_.category = category;
  event_.name = name;
  event_.pid = pid;
  event_.tid = tid;
  event_.start_ns = static_cast<int64_t>(start) + options_.clock_offset_ns;
  event_.duration_ns = static_cast<int64_t>(end - start);
  return event_;
}

std::string_view ActivityConverter::KernelName(const char* mangled) {
  if (mangled == nullptr) return "<unnamed kernel>";
  auto it = kernel_names_.find(mangled);
  // The pointer is CUPTI's, shared by every record of a kernel; after a module unload it
  // may name another kernel, hence the comparison with the copy.
  if (it != kernel_names_.end() && it->second.first == mangled) return it->second.second;
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string readable = status == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  auto& entry = kernel_names_[mangled];
  entry = {mangled, std::move(readable)};
  return entry.second;
}

void ActivityConverter::NoteDevice(uint32_t device, uint64_t timestamp) {
  if (!devices_announced_.insert(device).second) return;
  // Perfetto and the PyTorch trace viewer label a GPU's track group with these.
  scratch_name_ = "GPU " + std::to_string(device);
  TraceEvent& e = Begin('M', "", "process_name", device, 0, timestamp, timestamp);
  e.AddString("name", scratch_name_);
  sink_->Emit(e);
  TraceEvent& labels = Begin('M', "", "process_labels", device, 0, timestamp, timestamp);
  labels.AddString("labels", scratch_name_);
  sink_->Emit(labels);
}

void ActivityConverter::AddBandwidth(uint64_t bytes) {
  // GB/s = bytes per ns.
  if (event_.duration_ns > 0)
    event_.AddDouble("memory bandwidth (GB/s)", static_cast<double>(bytes) / static_cast<double>(event_.duration_ns));
}

TraceEvent& ActivityConverter::BeginGpuWork(std::string_view category, std::string_view name, uint32_t device,
                                            uint32_t context, uint32_t stream, uint32_t correlation, uint64_t start,
                                            uint64_t end) {
  TraceEvent& e = Begin('X', category, name, device, stream, start, end);
  e.AddInt("device", device);
  e.AddInt("context", context);
  e.AddInt("stream", stream);
  e.AddInt("correlation", correlation);
  return e;
}

void ActivityConverter::EmitGpuWork(uint32_t correlation, uint32_t device, uint32_t stream) {
  // The flow arrow from the launch (its start is on the API call with this correlation).
  if (correlation != 0) {
    event_.flow = FlowPhase::kFinish;
    event_.flow_id = correlation;
  }
  if (options_.project_annotations)
    projector_.AddGpuWork(correlation, device, stream, event_.start_ns, event_.start_ns + event_.duration_ns);
  sink_->Emit(event_);
}

void ActivityConverter::Convert(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return ConvertKernel(reinterpret_cast<const CUpti_ActivityKernel10&>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY: return ConvertMemcpy(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return ConvertPeerCopy(reinterpret_cast<const CUpti_ActivityMemcpyPtoP4&>(record));
    case CUPTI_ACTIVITY_KIND_MEMSET: return ConvertMemset(reinterpret_cast<const CUpti_ActivityMemset4&>(record));
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      return ConvertApi(reinterpret_cast<const CUpti_ActivityAPI&>(record), ApiDomain::kRuntime);
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return ConvertApi(reinterpret_cast<const CUpti_ActivityAPI&>(record), ApiDomain::kDriver);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return ConvertSync(reinterpret_cast<const CUpti_ActivitySynchronization2&>(record));
    case CUPTI_ACTIVITY_KIND_MARKER: return ConvertMarker(reinterpret_cast<const CUpti_ActivityMarker2&>(record));
    case CUPTI_ACTIVITY_KIND_DEVICE: return ConvertDevice(reinterpret_cast<const CUpti_ActivityDevice5&>(record));
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto& c = reinterpret_cast<const CUpti_ActivityContext3&>(record);
      context_device_[c.contextId] = c.deviceId;
      return;
    }
    default: ++counts_.other_records; return;
  }
}

void ActivityConverter::ConvertKernel(const CUpti_ActivityKernel10& k) {
  if (!Timed(k.start, k.end)) {
    ++counts_.without_timestamps;
    return;
  }
  ++counts_.kernels;
  context_device_[k.contextId] = k.deviceId;
  NoteDevice(k.deviceId, k.start);
  TraceEvent& e = BeginGpuWork("kernel", KernelName(k.name), k.deviceId, k.contextId, k.streamId,
                               k.correlationId, k.start, k.end);
  e.AddInt("registers per thread", k.registersPerThread);
  e.AddInt("shared memory", static_cast<int64_t>(k.staticSharedMemory) + k.dynamicSharedMemory);
  e.AddInt("static shared memory", k.staticSharedMemory);
  e.AddInt("dynamic shared memory", k.dynamicSharedMemory);
  e.AddInt("local memory per thread", k.localMemoryPerThread);
  auto device = devices_.find(k.deviceId);
  if (device != devices_.end() && device->second.num_sms > 0) {
    // Kineto's launch estimates: grid blocks per SM and warps per SM.
    double blocks = static_cast<double>(k.gridX) * k.gridY * k.gridZ;
    double threads = static_cast<double>(k.blockX) * k.blockY * k.blockZ;
    double blocks_per_sm = blocks / static_cast<double>(device->second.num_sms);
    e.AddDouble("blocks per SM", blocks_per_sm);
    e.AddDouble("warps per SM", blocks_per_sm * threads / 32.0);
  }
  e.AddDim3("grid", k.gridX, k.gridY, k.gridZ);
  e.AddDim3("block", k.blockX, k.blockY, k.blockZ);
  if (k.graphId != 0) e.AddInt("graph id", k.graphId);
  if (k.graphNodeId != 0) e.AddInt("graph node id", static_cast<int64_t>(k.graphNodeId));
  EmitGpuWork(k.correlationId, k.deviceId, k.streamId);
}

void ActivityConverter::ConvertMemcpy(const CUpti_ActivityMemcpy6& m) {
  if (!Timed(m.start, m.end)) {
    ++counts_.without_timestamps;
    return;
  }
  ++counts_.memcpys;
  context_device_[m.contextId] = m.deviceId;
  NoteDevice(m.deviceId, m.start);
  scratch_name_ = "Memcpy ";
  scratch_name_ += CopyKindName(m.copyKind);
  scratch_name_ += " (";
  scratch_name_ += MemoryKindName(m.srcKind);
  scratch_name_ += " -> ";
  scratch_name_ += MemoryKindName(m.dstKind);
  scratch_name_ += ")";
  TraceEvent& e = BeginGpuWork("gpu_memcpy", scratch_name_, m.deviceId, m.contextId, m.streamId,
                               m.correlationId, m.start, m.end);
  e.AddInt("bytes", static_cast<int64_t>(m.bytes));
  AddBandwidth(m.bytes);
  e.AddString("src kind", MemoryKindName(m.srcKind));
  e.AddString("dst kind", MemoryKindName(m.dstKind));
  EmitGpuWork(m.correlationId, m.deviceId, m.streamId);
}

void ActivityConverter::ConvertPeerCopy(const CUpti_ActivityMemcpyPtoP4& m) {
  if (!Timed(m.start, m.end)) {
    ++counts_.without_timestamps;
    return;
  }
  ++counts_.memcpys;
  NoteDevice(m.deviceId, m.start);
  scratch_name_ = "Memcpy PtoP (";
  scratch_name_ += MemoryKindName(m.srcKind);
  scratch_name_ += " -> ";
  scratch_name_ += MemoryKindName(m.dstKind);
  scratch_name_ += ")";
  TraceEvent& e = BeginGpuWork("gpu_memcpy", scratch_name_, m.deviceId, m.contextId, m.streamId,
                               m.correlationId, m.start, m.end);
  e.AddInt("bytes", static_cast<int64_t>(m.bytes));
  AddBandwidth(m.bytes);
  e.AddInt("src device", m.srcDeviceId);
  e.AddInt("dst device", m.dstDeviceId);
  EmitGpuWork(m.correlationId, m.deviceId, m.streamId);
}

void ActivityConverter::ConvertMemset(const CUpti_ActivityMemset4& m) {
  if (!Timed(m.start, m.end)) {
    ++counts_.without_timestamps;
    return;
  }
  ++counts_.memsets;
  context_device_[m.contextId] = m.deviceId;
  NoteDevice(m.deviceId, m.start);
  scratch_name_ = "Memset (";
  scratch_name_ += MemoryKindName(m.memoryKind);
  scratch_name_ += ")";
  TraceEvent& e = BeginGpuWork("gpu_memset", scratch_name_, m.deviceId, m.contextId, m.streamId,
                               m.correlationId, m.start, m.end);
  e.AddInt("bytes", static_cast<int64_t>(m.bytes));
  AddBandwidth(m.bytes);
  EmitGpuWork(m.correlationId, m.deviceId, m.streamId);
}

void ActivityConverter::ConvertApi(const CUpti_ActivityAPI& api, ApiDomain domain) {
  std::string_view name = ApiCallName(domain, api.cbid);
  if (name.empty()) {
    uint64_t key = (static_cast<uint64_t>(domain) << 32) | api.cbid;
    auto it = api_name_fallbacks_.find(key);
    if (it == api_name_fallbacks_.end()) {
      std::string fallback = options_.api_name_fallback ? options_.api_name_fallback(domain, api.cbid) : "";
      if (fallback.empty())
        fallback = (domain == ApiDomain::kRuntime ? "cudaRuntimeApi#" : "cuDriverApi#") + std::to_string(api.cbid);
      it = api_name_fallbacks_.emplace(key, std::string(StripVersionSuffix(fallback))).first;
    }
    name = it->second;
  }
  if (options_.api == ApiRecording::kNone || (options_.api == ApiRecording::kLaunches && !RecordedByDefault(name))) {
    ++counts_.api_calls_skipped;
    return;
  }
  if (!Timed(api.start, api.end)) {
    ++counts_.without_timestamps;
    return;
  }
  ++(domain == ApiDomain::kRuntime ? counts_.runtime_calls : counts_.driver_calls);
  TraceEvent& e = Begin('X', domain == ApiDomain::kRuntime ? "cuda_runtime" : "cuda_driver", name, api.processId,
                        api.threadId, api.start, api.end);
  e.AddInt("cbid", api.cbid);
  e.AddInt("correlation", api.correlationId);
  if (RecordedByDefault(name) && api.correlationId != 0) {
    e.flow = FlowPhase::kStart;
    e.flow_id = api.correlationId;
  }
  if (options_.project_annotations && LaunchesGpuWork(name))
    projector_.AddLaunch(api.correlationId, api.threadId, e.start_ns);
  sink_->Emit(e);
}

void ActivityConverter::ConvertSync(const CUpti_ActivitySynchronization2& s) {
  if (!Timed(s.start, s.end)) {
    ++counts_.without_timestamps;
    return;
  }
  ++counts_.syncs;
  auto device_it = context_device_.find(s.contextId);
  int64_t device = device_it != context_device_.end() ? device_it->second : -1;
  // Kineto's placement: the device's track, the stream waited on (or that waits), -1 for
  // context and event syncs.
  bool on_stream = s.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ||
                   s.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  int64_t stream = on_stream ? static_cast<int64_t>(s.streamId) : -1;
  std::string_view name = SyncName(s.type);
  TraceEvent& e = Begin('X', "cuda_sync", name, device, stream, s.start, s.end);
  e.AddString("cuda_sync_kind", name);
  e.AddInt("stream", stream);
  e.AddInt("correlation", s.correlationId);
  e.AddInt("device", device);
  e.AddInt("context", s.contextId);
  if (s.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE ||
      s.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
    e.AddInt("wait_on_cuda_event_id", s.cudaEventId);
  if (s.correlationId != 0) {
    e.flow = FlowPhase::kFinish;
    e.flow_id = s.correlationId;
  }
  sink_->Emit(e);
}

void ActivityConverter::ConvertMarker(const CUpti_ActivityMarker2& m) {
  bool on_thread = m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS;
  int64_t pid = on_thread ? m.objectId.pt.processId : 0;
  int64_t tid = on_thread ? m.objectId.pt.threadId : 0;
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    OpenRange& range = open_ranges_[m.id];
    range = {m.name != nullptr ? m.name : "", m.domain != nullptr ? m.domain : "", pid, tid,
             static_cast<int64_t>(m.timestamp)};
    return;
  }
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    auto it = open_ranges_.find(m.id);
    if (it == open_ranges_.end()) {
      ++counts_.nvtx_unmatched_ends;
      return;
    }
    OpenRange range = std::move(it->second);
    open_ranges_.erase(it);
    ++counts_.nvtx_ranges;
    TraceEvent& e = Begin('X', "user_annotation", range.name, range.pid, range.tid,
                          static_cast<uint64_t>(range.start_ns), std::max(m.timestamp, static_cast<uint64_t>(range.start_ns)));
    if (!range.domain.empty()) e.AddString("domain", range.domain);
    sink_->Emit(e);
    if (options_.project_annotations)
      projector_.AddRange(range.tid, e.start_ns, e.start_ns + e.duration_ns, std::move(range.name));
    return;
  }
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    ++counts_.nvtx_marks;
    TraceEvent& e = Begin('i', "user_annotation", m.name != nullptr ? m.name : "", pid, tid, m.timestamp, m.timestamp);
    if (m.domain != nullptr) e.AddString("domain", m.domain);
    sink_->Emit(e);
  }
}

void ActivityConverter::ConvertDevice(const CUpti_ActivityDevice5& d) {
  DeviceProperties p;
  p.id = d.id;
  p.name = d.name != nullptr ? d.name : "";
  p.total_global_mem = static_cast<int64_t>(d.globalMemorySize);
  p.compute_major = d.computeCapabilityMajor;
  p.compute_minor = d.computeCapabilityMinor;
  p.num_sms = d.numMultiprocessors;
  p.max_threads_per_block = d.maxThreadsPerBlock;
  p.max_threads_per_sm = static_cast<int64_t>(d.maxWarpsPerMultiprocessor) * 32;
  p.regs_per_block = d.maxRegistersPerBlock;
  p.regs_per_sm = d.maxRegistersPerMultiprocessor;
  p.shared_mem_per_block = d.maxSharedMemoryPerBlock;
  p.shared_mem_per_sm = d.maxSharedMemoryPerMultiprocessor;
  if (devices_.emplace(p.id, std::move(p)).second) ++counts_.devices;
}

void ActivityConverter::Finish(int64_t end_ns) {
  for (auto& [id, range] : open_ranges_) {
    ++counts_.nvtx_open_at_end;
    TraceEvent& e = Begin('X', "user_annotation", range.name, range.pid, range.tid,
                          static_cast<uint64_t>(range.start_ns),
                          static_cast<uint64_t>(std::max<int64_t>(end_ns, range.start_ns)));
    e.AddInt("open at end of trace", 1);
    sink_->Emit(e);
    if (options_.project_annotations)
      projector_.AddRange(range.tid, e.start_ns, e.start_ns + e.duration_ns, range.name);
  }
  open_ranges_.clear();
  if (options_.project_annotations) counts_.gpu_annotations += projector_.Project(sink_);
}

JsonMembers ActivityConverter::FooterMembers() const {
  JsonMembers members;
  if (!devices_.empty()) {
    std::string text = "[";
    for (const auto& [id, d] : devices_) {
      if (text.size() > 1) text += ",";
      text += "\n    {\"id\": " + JsonInt(d.id) + ", \"name\": " + JsonString(d.name) +
              ", \"totalGlobalMem\": " + JsonInt(d.total_global_mem) + ", \"computeMajor\": " +
              JsonInt(d.compute_major) + ", \"computeMinor\": " + JsonInt(d.compute_minor) +
              ", \"maxThreadsPerBlock\": " + JsonInt(d.max_threads_per_block) +
              ", \"maxThreadsPerMultiprocessor\": " + JsonInt(d.max_threads_per_sm) +
              ", \"regsPerBlock\": " + JsonInt(d.regs_per_block) + ", \"regsPerMultiprocessor\": " +
              JsonInt(d.regs_per_sm) + ", \"warpSize\": 32, \"sharedMemPerBlock\": " +
              JsonInt(d.shared_mem_per_block) + ", \"sharedMemPerMultiprocessor\": " +
              JsonInt(d.shared_mem_per_sm) + ", \"numSms\": " + JsonInt(d.num_sms) + "}";
    }
    members.emplace_back("deviceProperties", text + "\n  ]");
  }
  const ConversionCounts& c = counts_;
  for (const auto& [name, value] : std::initializer_list<std::pair<const char*, int64_t>>{
           {"kraken_cupti_kernels", c.kernels},
           {"kraken_cupti_memcpys", c.memcpys},
           {"kraken_cupti_memsets", c.memsets},
           {"kraken_cupti_runtime_calls", c.runtime_calls},
           {"kraken_cupti_driver_calls", c.driver_calls},
           {"kraken_cupti_api_calls_skipped", c.api_calls_skipped},
           {"kraken_cupti_syncs", c.syncs},
           {"kraken_cupti_nvtx_ranges", c.nvtx_ranges},
           {"kraken_cupti_gpu_annotations", c.gpu_annotations},
           {"kraken_cupti_records_without_timestamps", c.without_timestamps},
           {"kraken_cupti_annotation_records_dropped", projector_.dropped()}})
    members.emplace_back(name, JsonInt(value));
  return members;
}

}  // namespace kraken::cupti
