#include "collectors/cupti/activity_converter.h"

#include <cstddef>

#include "collectors/cupti/kernel_name.h"

namespace kraken::cupti {

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
  auto& entry = kernel_names_[mangled];
  entry = {mangled, ReadableKernelName(mangled)};
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
    case CUPTI_ACTIVITY_KIND_MEMORY2: return ConvertMemory(reinterpret_cast<const CUpti_ActivityMemory4&>(record));
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto& c = reinterpret_cast<const CUpti_ActivityContext3&>(record);
      context_device_[c.contextId] = c.deviceId;
      return;
    }
    default: ++counts_.other_records; return;
  }
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
           {"kraken_cupti_annotation_records_dropped", projector_.dropped()},
           {"kraken_cupti_memory_allocations", c.memory_allocations},
           {"kraken_cupti_memory_releases", c.memory_releases},
           {"kraken_cupti_memory_releases_of_unknown_addresses", c.memory_unknown_releases},
           {"kraken_cupti_memory_reused_addresses", c.memory_reused_addresses},
           {"kraken_cupti_memory_pool_records_not_counted", c.memory_pool_records},
           {"kraken_cupti_memory_other_kinds_not_counted", c.memory_other_kinds}})
    members.emplace_back(name, JsonInt(value));
  if (c.memory_allocations + c.memory_unknown_releases + c.memory_pool_records + c.memory_other_kinds > 0)
    members.emplace_back("kraken_cupti_memory_counted",
                         JsonString("device allocations (cudaMalloc, cuMemAlloc) made during the trace; not counted: "
                                    "stream-ordered pools (cudaMallocAsync), the CUDA context, host and managed memory"));
  return members;
}

}  // namespace kraken::cupti
