// ActivityConverter's conversion of each kind of CUPTI record into its trace event (Kineto's
// names and args). The dispatch by kind, the shared event building (Begin, BeginGpuWork,
// EmitGpuWork) and the end of the trace are in activity_converter.cc.
#include "collectors/cupti/activity_converter.h"

#include <algorithm>
#include <cstddef>
#include <string>

namespace kraken::cupti {
namespace {

// The fields read below sit where they did in the oldest records kraken reads (CUDA 11.6:
// Kernel7, Memcpy5, MemcpyPtoP3, Memset3, Synchronization, Device4; Marker2 and API are
// unchanged since CUDA 8), so a record from an older libcupti reads the same (the context
// record's deviceId is read by Convert, in activity_converter.cc).
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

}  // namespace kraken::cupti
