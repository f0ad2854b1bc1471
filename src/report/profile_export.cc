#include "report/profile_export.h"

#include "model/enum_names.h"

namespace kraken {
namespace {

void OptionalNumber(JsonWriter& json, std::string_view key, const std::optional<double>& value) {
  json.Key(key);
  value ? json.ExactNumber(*value) : json.Null();
}

void Dim(JsonWriter& json, std::string_view key, const Dim3& d) {
  json.Key(key).BeginArray().Int(d[0]).Int(d[1]).Int(d[2]).EndArray();
}

// name, start_ns, duration_ns: the fields every timed record starts with.
template <typename T>
void TimedHead(const Profile& p, const T& e, JsonWriter& json) {
  json.BeginObject().Field("name", p.Name(e.name)).Field("start_ns", e.start_ns).Field("duration_ns", e.duration_ns);
}

void WriteTimelines(const Profile& p, JsonWriter& json) {
  json.Key("kernels").BeginArray();
  for (const Kernel& k : p.kernels) {
    TimedHead(p, k, json);
    json.Field("device", k.device).Field("stream", k.stream).Field("correlation_id", k.correlation_id);
    json.Field("external_id", k.external_id);
    Dim(json, "grid", k.grid);
    Dim(json, "block", k.block);
    json.Field("registers_per_thread", k.registers_per_thread).Field("shared_memory_bytes", k.shared_memory_bytes);
    json.Key("blocks_per_sm").ExactNumber(k.blocks_per_sm).Key("warps_per_sm").ExactNumber(k.warps_per_sm);
    json.Key("est_achieved_occupancy_pct").ExactNumber(k.est_achieved_occupancy_pct);
    json.Field("counters_index", k.counters_index).Field("collective_index", k.collective_index).EndObject();
  }
  json.EndArray().Key("memory_ops").BeginArray();
  for (const MemoryOp& m : p.memory_ops) {
    TimedHead(p, m, json);
    json.Field("device", m.device).Field("stream", m.stream).Field("correlation_id", m.correlation_id);
    json.Field("bytes", m.bytes).Field("kind", MemoryOpKindName(m.kind));
    json.Field("direction", CopyDirectionName(m.direction)).Field("pageable_host_memory", m.pageable_host_memory);
    json.EndObject();
  }
  json.EndArray().Key("cpu_ops").BeginArray();
  for (const CpuOp& c : p.cpu_ops) {
    TimedHead(p, c, json);
    json.Field("pid", c.pid).Field("tid", c.tid).Field("external_id", c.external_id);
    json.Field("category", CpuOpCategoryName(c.category)).EndObject();
  }
  json.EndArray().Key("runtime_calls").BeginArray();
  for (const RuntimeCall& r : p.runtime_calls) {
    TimedHead(p, r, json);
    json.Field("pid", r.pid).Field("tid", r.tid).Field("correlation_id", r.correlation_id);
    json.Field("external_id", r.external_id).Field("is_driver_api", r.is_driver_api).EndObject();
  }
  json.EndArray().Key("steps").BeginArray();
  for (const StepAnnotation& s : p.steps) {
    json.BeginObject().Field("step_number", s.step_number).Field("start_ns", s.start_ns);
    json.Field("duration_ns", s.duration_ns).Field("tid", s.tid).EndObject();
  }
  json.EndArray().Key("syncs").BeginArray();
  for (const SyncEvent& s : p.syncs) {
    TimedHead(p, s, json);
    json.Field("device", s.device).Field("stream", s.stream).EndObject();
  }
  json.EndArray();
}

void WriteRecords(const Profile& p, JsonWriter& json) {
  json.Key("kernel_counters").BeginArray();
  for (const KernelCounters& c : p.kernel_counters) {
    // Only the counters the profiler collected: absent means "not measured", never 0.
    json.BeginObject();
    const std::pair<const char*, const std::optional<double>*> fields[] = {
        {"fp64_flops", &c.fp64_flops}, {"fp32_flops", &c.fp32_flops}, {"fp16_flops", &c.fp16_flops},
        {"tensor_flops", &c.tensor_flops}, {"dram_bytes", &c.dram_bytes}, {"l2_bytes", &c.l2_bytes},
        {"l1_bytes", &c.l1_bytes}, {"sm_throughput_pct", &c.sm_throughput_pct},
        {"dram_throughput_pct", &c.dram_throughput_pct}, {"memory_throughput_pct", &c.memory_throughput_pct},
        {"tensor_pipe_active_pct", &c.tensor_pipe_active_pct}, {"achieved_occupancy_pct", &c.achieved_occupancy_pct},
        {"sm_clock_hz", &c.sm_clock_hz}, {"dram_clock_hz", &c.dram_clock_hz},
        {"peak_fp32_flops_per_s", &c.peak_fp32_flops_per_s}, {"peak_fp64_flops_per_s", &c.peak_fp64_flops_per_s},
        {"peak_dram_bytes_per_s", &c.peak_dram_bytes_per_s}, {"peak_tensor_flops_per_s", &c.peak_tensor_flops_per_s}};
    for (const auto& [key, value] : fields)
      if (value->has_value()) json.Key(key).ExactNumber(**value);
    json.EndObject();
  }
  json.EndArray().Key("collectives").BeginArray();
  for (const CollectiveInfo& c : p.collectives) {
    json.BeginObject().Field("collective_name", c.collective_name).Field("in_msg_nelems", c.in_msg_nelems);
    json.Field("out_msg_nelems", c.out_msg_nelems).Field("group_size", c.group_size).Field("dtype", c.dtype);
    json.Field("process_group_name", c.process_group_name);
    json.Field("process_group_description", c.process_group_description);
    json.Field("process_group_ranks", c.process_group_ranks).EndObject();
  }
  json.EndArray().Key("profiler_ranges").BeginArray();
  for (const ProfilerRange& r : p.profiler_ranges) {
    TimedHead(p, r, json);
    json.Field("counters_index", r.counters_index).Key("raw_counters").BeginObject();
    for (const auto& [name, value] : r.raw_counters) json.Key(name).ExactNumber(value);
    json.EndObject().EndObject();
  }
  json.EndArray().Key("metric_declarations").BeginArray();
  for (const MetricDeclaration& d : p.metric_declarations) {
    json.BeginObject().Field("source_name", d.source_name).Field("type", d.type).Field("help", d.help);
    json.Field("metric", GetMetricInfo(d.metric).name).Field("current_name", d.current_name).EndObject();
  }
  json.EndArray().Key("kernel_labels").BeginArray();
  for (const KernelLabel& l : p.kernel_labels)
    json.BeginObject().Field("kernel", l.kernel).Field("label", l.label).Field("source", l.source).EndObject();
  json.EndArray().Key("import_counters").BeginObject();
  for (const auto& [name, value] : p.import_counters) json.Field(name, value);
  json.EndObject();
}

}  // namespace

void WriteMetadataJson(const ProfileMetadata& md, JsonWriter& json) {
  json.BeginObject().Field("source", md.source).Field("format", md.format);
  json.Key("rank");
  md.rank ? json.Int(*md.rank) : json.Null();
  json.Key("world_size");
  md.world_size ? json.Int(*md.world_size) : json.Null();
  json.Field("distributed_backend", md.distributed_backend).Field("hostname", md.hostname);
  json.Field("base_time_ns", md.base_time_ns).Field("accelerator_vendor", VendorName(md.accelerator_vendor));
  json.Field("kernel_timestamps_valid", md.kernel_timestamps_valid).Key("attributes").BeginObject();
  for (const auto& [key, value] : md.attributes) json.Field(key, value);
  json.EndObject().EndObject();
}

void WriteDeviceJson(const DeviceInfo& d, JsonWriter& json) {
  json.BeginObject().Field("index", d.index).Field("name", d.name).Field("vendor", VendorName(d.vendor));
  json.Field("uuid", d.uuid).Field("pci_bus_id", d.pci_bus_id).Field("architecture", d.architecture);
  json.Field("sm_count", d.sm_count).Field("compute_major", d.compute_major).Field("compute_minor", d.compute_minor);
  json.Field("memory_bytes", d.memory_bytes).Field("warp_size", d.warp_size);
  json.Field("max_threads_per_sm", d.max_threads_per_sm).Field("registers_per_sm", d.registers_per_sm);
  json.Field("shared_memory_per_sm_bytes", d.shared_memory_per_sm_bytes);
  OptionalNumber(json, "max_sm_clock_mhz", d.max_sm_clock_mhz);
  OptionalNumber(json, "max_mem_clock_mhz", d.max_mem_clock_mhz);
  OptionalNumber(json, "power_limit_w", d.power_limit_w);
  json.Key("pcie_generation");
  d.pcie_generation ? json.Int(*d.pcie_generation) : json.Null();
  json.Key("pcie_link_width");
  d.pcie_link_width ? json.Int(*d.pcie_link_width) : json.Null();
  json.Field("driver_version", d.driver_version).Field("cuda_version", d.cuda_version);
  json.Field("mig_enabled", d.mig_enabled).Field("mig_enabled_pending", d.mig_enabled_pending);
  json.Field("minor_number", d.minor_number).Key("mig_instances").BeginArray();
  for (const MigInstance& m : d.mig_instances) {
    json.BeginObject().Field("gpu_instance_id", m.gpu_instance_id).Field("compute_instance_id", m.compute_instance_id);
    json.Field("profile", m.profile).Field("memory_bytes", m.memory_bytes).Field("sm_count", m.sm_count).EndObject();
  }
  json.EndArray().EndObject();
}

void WriteEntityJson(const SeriesEntity& e, JsonWriter& json) {
  json.BeginObject().Field("gpu_index", e.gpu_index).Field("gpu_uuid", e.gpu_uuid).Field("gpu_name", e.gpu_name);
  json.Field("pci_bus_id", e.pci_bus_id).Field("gpu_instance_id", e.gpu_instance_id);
  json.Field("mig_profile", e.mig_profile).Field("pid", e.pid).Field("process_name", e.process_name);
  json.Field("hostname", e.hostname).Field("pod", e.pod).Field("namespace", e.namespace_name);
  json.Field("container", e.container).Key("labels").BeginObject();
  for (const auto& [key, value] : e.labels) json.Field(key, value);
  json.EndObject().EndObject();
}

std::string DescribeEntity(const SeriesEntity& e) {
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : " ") + part; };
  if (!e.hostname.empty()) add(e.hostname);
  if (e.gpu_index >= 0) add("gpu " + std::to_string(e.gpu_index));
  else if (!e.gpu_uuid.empty()) add(e.gpu_uuid);
  if (e.gpu_instance_id >= 0)
    add("mig " + std::to_string(e.gpu_instance_id) + (e.mig_profile.empty() ? "" : " (" + e.mig_profile + ")"));
  if (e.pid >= 0) add("pid " + std::to_string(e.pid) + (e.process_name.empty() ? "" : " (" + e.process_name + ")"));
  if (!e.pod.empty()) add("pod " + (e.namespace_name.empty() ? "" : e.namespace_name + "/") + e.pod);
  return text.empty() ? "node" : text;
}

void BeginProfileJson(const Profile& p, JsonWriter& json) {
  json.BeginObject().Field("kraken_profile_version", 1).Key("metadata");
  WriteMetadataJson(p.metadata, json);
  json.Key("devices").BeginArray();
  for (const DeviceInfo& d : p.devices) WriteDeviceJson(d, json);
  json.EndArray();
  WriteTimelines(p, json);
  WriteRecords(p, json);
  json.Key("series").BeginArray();
}

void WriteSeriesJson(const Series& s, std::span<const Sample> samples, JsonWriter& json) {
  const MetricInfo& info = GetMetricInfo(s.metric);
  json.BeginObject().Field("metric", info.name).Field("unit", info.unit).Field("source_name", s.source_name);
  json.Field("axis", SampleAxisName(s.axis)).Key("entity");
  WriteEntityJson(s.entity, json);
  json.Key("samples").BeginArray();
  for (const Sample& sample : samples) json.BeginArray().Int(sample.time_ns).ExactNumber(sample.value).EndArray();
  json.EndArray().EndObject();
}

void EndProfileJson(JsonWriter& json) { json.EndArray().EndObject(); }

void WriteProfileJson(const Profile& profile, JsonWriter& json) {
  BeginProfileJson(profile, json);
  for (const Series& s : profile.series) WriteSeriesJson(s, s.samples, json);
  EndProfileJson(json);
}

}  // namespace kraken
