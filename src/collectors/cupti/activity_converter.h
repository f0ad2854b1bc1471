// CUPTI activity records -> Kineto trace events (trace_event.h). The only code that reads
// CUPTI's record structs: kernels (CUpti_ActivityKernel*), memcpy and peer copies, memsets,
// runtime/driver API calls (CUpti_ActivityAPI), synchronizations, NVTX markers
// (CUpti_ActivityMarker2), device memory allocations (CUpti_ActivityMemory4: counter events
// of the bytes each device holds, device_memory.h), devices and contexts. Records are read through the CUDA 13
// structs, using only fields that sit at the same offsets since CUDA 11.6 (checked with
// static_assert against the older structs), so one build reads any libcupti since then.
//
// Event categories and args are those of Kineto's output (shared/docs/formats-kineto-and-
// hta.md): "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "cuda_sync",
// "user_annotation" (NVTX ranges on their thread), "gpu_user_annotation" (their GPU
// projection), "ac2g" flows keyed by the correlation id.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "collectors/cupti/annotation_projector.h"
#include "collectors/cupti/api_names.h"
#include "collectors/cupti/device_memory.h"
#include "collectors/cupti/kineto_writer.h"
#include "collectors/cupti/trace_event.h"
#include "collectors/cupti/tracer_config.h"

namespace kraken::cupti {

struct ConverterOptions {
  // Added to every CUPTI timestamp: CUPTI's clock -> Unix time in ns (0 in tests).
  int64_t clock_offset_ns = 0;
  // API records not in this selection are skipped (CUPTI before 12.? cannot filter by id).
  ApiRecording api = ApiRecording::kLaunches;
  // Project NVTX ranges onto the GPU (keeps launches and GPU work until the end).
  bool project_annotations = true;
  size_t max_projection_records = 1 << 20;
  // The name of an id the generated tables lack (a newer libcupti): cuptiGetCallbackName.
  std::function<std::string(ApiDomain, uint32_t)> api_name_fallback;
};

// One device's properties, from CUPTI's device record, in Kineto's deviceProperties keys.
struct DeviceProperties {
  int64_t id = 0;
  std::string name;
  int64_t total_global_mem = 0;
  int64_t compute_major = 0, compute_minor = 0;
  int64_t num_sms = 0;
  int64_t max_threads_per_block = 0, max_threads_per_sm = 0;
  int64_t regs_per_block = 0, regs_per_sm = 0;
  int64_t shared_mem_per_block = 0, shared_mem_per_sm = 0;
};

struct ConversionCounts {
  int64_t kernels = 0;
  int64_t memcpys = 0;
  int64_t memsets = 0;
  int64_t runtime_calls = 0;
  int64_t driver_calls = 0;
  int64_t api_calls_skipped = 0;  // not selected, recorded because CUPTI could not filter
  int64_t syncs = 0;
  int64_t nvtx_ranges = 0;
  int64_t nvtx_marks = 0;
  int64_t nvtx_unmatched_ends = 0;
  int64_t nvtx_open_at_end = 0;  // closed at the end of the trace
  int64_t gpu_annotations = 0;
  int64_t devices = 0;
  // Memory records (activity_memory.cc). Only device allocations outside stream-ordered
  // pools are counted in the bytes outstanding.
  int64_t memory_allocations = 0;       // device allocations counted
  int64_t memory_releases = 0;          // releases of counted allocations
  int64_t memory_unknown_releases = 0;  // of addresses allocated before the trace: ignored
  int64_t memory_reused_addresses = 0;  // allocations at an address still held (release lost)
  int64_t memory_pool_records = 0;      // cudaMallocAsync pool sub-allocations, releases: not counted
  int64_t memory_other_kinds = 0;       // pinned host, managed, static ...: not counted
  int64_t without_timestamps = 0;  // CUPTI had no device memory to time them
  int64_t other_records = 0;       // kinds the tracer does not enable
};

class ActivityConverter {
 public:
  ActivityConverter(TraceEventSink* sink, ConverterOptions options);

  void Convert(const CUpti_Activity& record);
  // Closes NVTX ranges still open at `end_ns` (CUPTI clock) and emits the GPU projections.
  void Finish(int64_t end_ns);

  // "deviceProperties" (when CUPTI reported devices) and the counts, as top-level members.
  JsonMembers FooterMembers() const;
  const ConversionCounts& counts() const { return counts_; }
  // CUPTI's clock measured against Unix time later than construction (a deferred attach,
  // cupti_detach.h): the records converted from here on use it.
  void set_clock_offset_ns(int64_t offset_ns) { options_.clock_offset_ns = offset_ns; }
  int64_t projection_dropped() const { return projector_.dropped(); }

 private:
  struct OpenRange {
    std::string name;
    std::string domain;
    int64_t pid = 0, tid = 0, start_ns = 0;
  };

  TraceEvent& Begin(char phase, std::string_view category, std::string_view name, int64_t pid, int64_t tid,
                    uint64_t start, uint64_t end);
  std::string_view KernelName(const char* mangled);
  void NoteDevice(uint32_t device, uint64_t timestamp);
  void AddBandwidth(uint64_t bytes);
  // A kernel, copy or memset: Begin with the ids every GPU record carries, and its end
  // (flow from the launch, annotation projection, emit).
  TraceEvent& BeginGpuWork(std::string_view category, std::string_view name, uint32_t device, uint32_t context,
                           uint32_t stream, uint32_t correlation, uint64_t start, uint64_t end);
  void EmitGpuWork(uint32_t correlation, uint32_t device, uint32_t stream);

  void ConvertKernel(const CUpti_ActivityKernel10& k);
  void ConvertMemcpy(const CUpti_ActivityMemcpy6& m);
  void ConvertPeerCopy(const CUpti_ActivityMemcpyPtoP4& m);
  void ConvertMemset(const CUpti_ActivityMemset4& m);
  void ConvertApi(const CUpti_ActivityAPI& api, ApiDomain domain);
  void ConvertSync(const CUpti_ActivitySynchronization2& s);
  void ConvertMarker(const CUpti_ActivityMarker2& m);
  void ConvertDevice(const CUpti_ActivityDevice5& d);
  void ConvertMemory(const CUpti_ActivityMemory4& m);

  TraceEventSink* sink_;
  ConverterOptions options_;
  TraceEvent event_;
  ConversionCounts counts_;
  AnnotationProjector projector_;
  // Mangled name pointer (CUPTI shares one per kernel) -> (mangled copy, demangled).
  std::unordered_map<const char*, std::pair<std::string, std::string>> kernel_names_;
  std::unordered_map<uint64_t, std::string> api_name_fallbacks_;  // domain << 32 | cbid
  std::unordered_map<uint32_t, uint32_t> context_device_;
  std::map<int64_t, DeviceProperties> devices_;
  std::unordered_set<uint32_t> devices_announced_;
  std::unordered_map<uint32_t, OpenRange> open_ranges_;  // by marker id
  DeviceMemoryTotals memory_;
  std::string scratch_name_;
};

}  // namespace kraken::cupti
