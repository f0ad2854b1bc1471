// One table per record type: its keys in the order the exporter writes them (so that
// ReadRecord finds each at the first try), the model field each fills, and the keys a
// record cannot do without. A key missing from a record keeps the model's default, which
// is also what the exporter writes for "not recorded".
#include "importers/kraken_json/kraken_json_sections.h"

namespace kraken::kraken_json {
namespace {

constexpr bool kRequired = true;

constexpr FieldSpec<Kernel> kKernelFields[] = {
    {"name", NameField<Kernel>{&Kernel::name}, kRequired},
    {"start_ns", &Kernel::start_ns, kRequired},
    {"duration_ns", &Kernel::duration_ns, kRequired},
    {"device", &Kernel::device},
    {"stream", &Kernel::stream},
    {"correlation_id", &Kernel::correlation_id},
    {"external_id", &Kernel::external_id},
    {"grid", &Kernel::grid},
    {"block", &Kernel::block},
    {"registers_per_thread", &Kernel::registers_per_thread},
    {"shared_memory_bytes", &Kernel::shared_memory_bytes},
    {"blocks_per_sm", &Kernel::blocks_per_sm},
    {"warps_per_sm", &Kernel::warps_per_sm},
    {"est_achieved_occupancy_pct", &Kernel::est_achieved_occupancy_pct},
    {"counters_index", &Kernel::counters_index},
    {"collective_index", &Kernel::collective_index},
};

constexpr FieldSpec<MemoryOp> kMemoryOpFields[] = {
    {"name", NameField<MemoryOp>{&MemoryOp::name}, kRequired},
    {"start_ns", &MemoryOp::start_ns, kRequired},
    {"duration_ns", &MemoryOp::duration_ns, kRequired},
    {"device", &MemoryOp::device},
    {"stream", &MemoryOp::stream},
    {"correlation_id", &MemoryOp::correlation_id},
    {"bytes", &MemoryOp::bytes},
    {"kind", &MemoryOp::kind},
    {"direction", &MemoryOp::direction},
    {"pageable_host_memory", &MemoryOp::pageable_host_memory},
};

constexpr FieldSpec<CpuOp> kCpuOpFields[] = {
    {"name", NameField<CpuOp>{&CpuOp::name}, kRequired},
    {"start_ns", &CpuOp::start_ns, kRequired},
    {"duration_ns", &CpuOp::duration_ns, kRequired},
    {"pid", &CpuOp::pid},
    {"tid", &CpuOp::tid},
    {"external_id", &CpuOp::external_id},
    {"category", &CpuOp::category},
};

constexpr FieldSpec<RuntimeCall> kRuntimeCallFields[] = {
    {"name", NameField<RuntimeCall>{&RuntimeCall::name}, kRequired},
    {"start_ns", &RuntimeCall::start_ns, kRequired},
    {"duration_ns", &RuntimeCall::duration_ns, kRequired},
    {"pid", &RuntimeCall::pid},
    {"tid", &RuntimeCall::tid},
    {"correlation_id", &RuntimeCall::correlation_id},
    {"external_id", &RuntimeCall::external_id},
    {"is_driver_api", &RuntimeCall::is_driver_api},
};

constexpr FieldSpec<StepAnnotation> kStepFields[] = {
    {"step_number", &StepAnnotation::step_number, kRequired},
    {"start_ns", &StepAnnotation::start_ns, kRequired},
    {"duration_ns", &StepAnnotation::duration_ns, kRequired},
    {"tid", &StepAnnotation::tid},
};

constexpr FieldSpec<SyncEvent> kSyncFields[] = {
    {"name", NameField<SyncEvent>{&SyncEvent::name}, kRequired},
    {"start_ns", &SyncEvent::start_ns, kRequired},
    {"duration_ns", &SyncEvent::duration_ns, kRequired},
    {"device", &SyncEvent::device},
    {"stream", &SyncEvent::stream},
};

// Only the measured counters are written: an empty object is a valid record.
using KC = KernelCounters;
constexpr FieldSpec<KC> kCounterFields[] = {
    {"fp64_flops", MeasuredField<KC>{&KC::fp64_flops}},
    {"fp32_flops", MeasuredField<KC>{&KC::fp32_flops}},
    {"fp16_flops", MeasuredField<KC>{&KC::fp16_flops}},
    {"tensor_flops", MeasuredField<KC>{&KC::tensor_flops}},
    {"dram_bytes", MeasuredField<KC>{&KC::dram_bytes}},
    {"l2_bytes", MeasuredField<KC>{&KC::l2_bytes}},
    {"l1_bytes", MeasuredField<KC>{&KC::l1_bytes}},
    {"sm_throughput_pct", MeasuredField<KC>{&KC::sm_throughput_pct}},
    {"dram_throughput_pct", MeasuredField<KC>{&KC::dram_throughput_pct}},
    {"memory_throughput_pct", MeasuredField<KC>{&KC::memory_throughput_pct}},
    {"tensor_pipe_active_pct", MeasuredField<KC>{&KC::tensor_pipe_active_pct}},
    {"achieved_occupancy_pct", MeasuredField<KC>{&KC::achieved_occupancy_pct}},
    {"sm_clock_hz", MeasuredField<KC>{&KC::sm_clock_hz}},
    {"dram_clock_hz", MeasuredField<KC>{&KC::dram_clock_hz}},
    {"peak_fp32_flops_per_s", MeasuredField<KC>{&KC::peak_fp32_flops_per_s}},
    {"peak_fp64_flops_per_s", MeasuredField<KC>{&KC::peak_fp64_flops_per_s}},
    {"peak_dram_bytes_per_s", MeasuredField<KC>{&KC::peak_dram_bytes_per_s}},
    {"peak_tensor_flops_per_s", MeasuredField<KC>{&KC::peak_tensor_flops_per_s}},
};

constexpr FieldSpec<CollectiveInfo> kCollectiveFields[] = {
    {"collective_name", &CollectiveInfo::collective_name},
    {"in_msg_nelems", &CollectiveInfo::in_msg_nelems},
    {"out_msg_nelems", &CollectiveInfo::out_msg_nelems},
    {"group_size", &CollectiveInfo::group_size},
    {"dtype", &CollectiveInfo::dtype},
    {"process_group_name", &CollectiveInfo::process_group_name},
    {"process_group_description", &CollectiveInfo::process_group_description},
    {"process_group_ranks", &CollectiveInfo::process_group_ranks},
};

constexpr FieldSpec<ProfilerRange> kRangeFields[] = {
    {"name", NameField<ProfilerRange>{&ProfilerRange::name}, kRequired},
    {"start_ns", &ProfilerRange::start_ns, kRequired},
    {"duration_ns", &ProfilerRange::duration_ns, kRequired},
    {"counters_index", &ProfilerRange::counters_index},
    {"raw_counters", &ProfilerRange::raw_counters},
};

constexpr FieldSpec<MetricDeclaration> kDeclarationFields[] = {
    {"source_name", &MetricDeclaration::source_name, kRequired},
    {"type", &MetricDeclaration::type},
    {"help", &MetricDeclaration::help},
    {"metric", &MetricDeclaration::metric},
    {"current_name", &MetricDeclaration::current_name},
};

constexpr FieldSpec<KernelLabel> kLabelFields[] = {
    {"kernel", &KernelLabel::kernel, kRequired},
    {"label", &KernelLabel::label, kRequired},
    {"source", &KernelLabel::source},
};

constexpr FieldSpec<MigInstance> kMigFields[] = {
    {"gpu_instance_id", &MigInstance::gpu_instance_id},
    {"compute_instance_id", &MigInstance::compute_instance_id},
    {"profile", &MigInstance::profile},
    {"memory_bytes", &MigInstance::memory_bytes},
    {"sm_count", &MigInstance::sm_count},
};

constexpr FieldSpec<DeviceInfo> kDeviceFields[] = {
    {"index", &DeviceInfo::index},
    {"name", &DeviceInfo::name},
    {"vendor", &DeviceInfo::vendor},
    {"uuid", &DeviceInfo::uuid},
    {"pci_bus_id", &DeviceInfo::pci_bus_id},
    {"architecture", &DeviceInfo::architecture},
    {"sm_count", &DeviceInfo::sm_count},
    {"compute_major", &DeviceInfo::compute_major},
    {"compute_minor", &DeviceInfo::compute_minor},
    {"memory_bytes", &DeviceInfo::memory_bytes},
    {"warp_size", &DeviceInfo::warp_size},
    {"max_threads_per_sm", &DeviceInfo::max_threads_per_sm},
    {"registers_per_sm", &DeviceInfo::registers_per_sm},
    {"shared_memory_per_sm_bytes", &DeviceInfo::shared_memory_per_sm_bytes},
    {"max_sm_clock_mhz", &DeviceInfo::max_sm_clock_mhz},
    {"max_mem_clock_mhz", &DeviceInfo::max_mem_clock_mhz},
    {"power_limit_w", &DeviceInfo::power_limit_w},
    {"pcie_generation", &DeviceInfo::pcie_generation},
    {"pcie_link_width", &DeviceInfo::pcie_link_width},
    {"driver_version", &DeviceInfo::driver_version},
    {"cuda_version", &DeviceInfo::cuda_version},
    {"mig_enabled", &DeviceInfo::mig_enabled},
    {"mig_enabled_pending", &DeviceInfo::mig_enabled_pending},
    {"minor_number", &DeviceInfo::minor_number},
    {"mig_instances", &DeviceInfo::mig_instances},
};

constexpr FieldSpec<SeriesEntity> kEntityFields[] = {
    {"gpu_index", &SeriesEntity::gpu_index},
    {"gpu_uuid", &SeriesEntity::gpu_uuid},
    {"gpu_name", &SeriesEntity::gpu_name},
    {"pci_bus_id", &SeriesEntity::pci_bus_id},
    {"gpu_instance_id", &SeriesEntity::gpu_instance_id},
    {"mig_profile", &SeriesEntity::mig_profile},
    {"pid", &SeriesEntity::pid},
    {"process_name", &SeriesEntity::process_name},
    {"hostname", &SeriesEntity::hostname},
    {"pod", &SeriesEntity::pod},
    {"namespace", &SeriesEntity::namespace_name},
    {"container", &SeriesEntity::container},
    {"labels", &SeriesEntity::labels},
};

// "unit" is not read: it follows from the metric. "axis" is absent from files written
// before it was added; they hold time series.
constexpr FieldSpec<Series> kSeriesFields[] = {
    {"metric", &Series::metric, kRequired},
    {"source_name", &Series::source_name},
    {"axis", &Series::axis},
    {"entity", &Series::entity},
    {"samples", &Series::samples, kRequired},
};

constexpr FieldSpec<ProfileMetadata> kMetadataFields[] = {
    {"source", &ProfileMetadata::source},
    {"format", &ProfileMetadata::format},
    {"rank", &ProfileMetadata::rank},
    {"world_size", &ProfileMetadata::world_size},
    {"distributed_backend", &ProfileMetadata::distributed_backend},
    {"hostname", &ProfileMetadata::hostname},
    {"base_time_ns", &ProfileMetadata::base_time_ns},
    {"accelerator_vendor", &ProfileMetadata::accelerator_vendor},
    {"kernel_timestamps_valid", &ProfileMetadata::kernel_timestamps_valid},
    {"attributes", &ProfileMetadata::attributes},
};

// A table as ReadRecord takes it; ReadRecord marks the keys seen in 64 bits.
template <typename R, size_t N>
std::span<const FieldSpec<R>> Specs(const FieldSpec<R> (&specs)[N]) {
  static_assert(N <= 64, "ReadRecord tracks at most 64 keys");
  return specs;
}

template <typename R, size_t N>
bool Append(od::value& v, const FieldSpec<R> (&specs)[N], std::vector<R>& out, ReadContext& context) {
  R record;
  if (!ReadRecord(v, Specs(specs), record, context)) return false;
  out.push_back(std::move(record));
  return true;
}

}  // namespace

bool Read(od::value& v, SeriesEntity& out) {
  ReadContext no_names;  // an entity holds no interned names
  return ReadRecord(v, Specs(kEntityFields), out, no_names);
}

bool Read(od::value& v, std::vector<MigInstance>& out) {
  od::array array;
  if (v.get_array().get(array) != simdjson::SUCCESS) return false;
  ReadContext no_names;
  for (auto element : array) {
    od::value item;
    if (std::move(element).get(item) != simdjson::SUCCESS || !Append(item, kMigFields, out, no_names)) return false;
  }
  return true;
}

bool AppendRecord(Section section, od::value& v, Profile& p, ReadContext& context) {
  switch (section) {
    case Section::kDevices: return Append(v, kDeviceFields, p.devices, context);
    case Section::kKernels: return Append(v, kKernelFields, p.kernels, context);
    case Section::kMemoryOps: return Append(v, kMemoryOpFields, p.memory_ops, context);
    case Section::kCpuOps: return Append(v, kCpuOpFields, p.cpu_ops, context);
    case Section::kRuntimeCalls: return Append(v, kRuntimeCallFields, p.runtime_calls, context);
    case Section::kSteps: return Append(v, kStepFields, p.steps, context);
    case Section::kSyncs: return Append(v, kSyncFields, p.syncs, context);
    case Section::kKernelCounters: return Append(v, kCounterFields, p.kernel_counters, context);
    case Section::kCollectives: return Append(v, kCollectiveFields, p.collectives, context);
    case Section::kProfilerRanges: return Append(v, kRangeFields, p.profiler_ranges, context);
    case Section::kMetricDeclarations: return Append(v, kDeclarationFields, p.metric_declarations, context);
    case Section::kKernelLabels: return Append(v, kLabelFields, p.kernel_labels, context);
    case Section::kSeries: return Append(v, kSeriesFields, p.series, context);
  }
  return false;
}

bool ReadMetadata(od::value& v, ProfileMetadata& metadata, ReadContext& context) {
  return ReadRecord(v, Specs(kMetadataFields), metadata, context);
}

}  // namespace kraken::kraken_json
