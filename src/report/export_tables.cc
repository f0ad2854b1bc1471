#include "report/export_tables.h"

#include <array>
#include <cmath>

#include "model/enum_names.h"

namespace kraken {
namespace {

using parquet::ColumnSpec;
using parquet::ColumnType;
constexpr ColumnType kInt = ColumnType::kInt64, kNum = ColumnType::kDouble, kText = ColumnType::kString,
                     kFlag = ColumnType::kBool;

// The counters a kernel row carries when its profiler measured them (null otherwise, never 0).
constexpr std::array<std::pair<const char*, std::optional<double> KernelCounters::*>, 8> kKernelCounterColumns{{
    {"fp32_flops", &KernelCounters::fp32_flops},
    {"fp64_flops", &KernelCounters::fp64_flops},
    {"fp16_flops", &KernelCounters::fp16_flops},
    {"tensor_flops", &KernelCounters::tensor_flops},
    {"dram_bytes", &KernelCounters::dram_bytes},
    {"sm_throughput_pct", &KernelCounters::sm_throughput_pct},
    {"dram_throughput_pct", &KernelCounters::dram_throughput_pct},
    {"achieved_occupancy_pct", &KernelCounters::achieved_occupancy_pct},
}};

std::vector<ColumnSpec> KernelColumns() {
  std::vector<ColumnSpec> columns = {
      {"name", kText}, {"start_ns", kInt}, {"duration_ns", kInt}, {"device", kInt}, {"stream", kInt},
      {"correlation_id", kInt}, {"external_id", kInt}, {"grid_x", kInt}, {"grid_y", kInt}, {"grid_z", kInt},
      {"block_x", kInt}, {"block_y", kInt}, {"block_z", kInt}, {"registers_per_thread", kInt},
      {"shared_memory_bytes", kInt}, {"blocks_per_sm", kNum}, {"warps_per_sm", kNum},
      {"est_achieved_occupancy_pct", kNum}, {"collective", kText}};
  for (const auto& [name, member] : kKernelCounterColumns) columns.push_back({name, kNum, true});
  return columns;
}

std::vector<ExportTableInfo> MakeTables() {
  return {
      {ExportTable::kKernels, "kernels", KernelColumns()},
      {ExportTable::kMemoryOps, "memory_ops",
       {{"name", kText}, {"start_ns", kInt}, {"duration_ns", kInt}, {"device", kInt}, {"stream", kInt},
        {"correlation_id", kInt}, {"bytes", kInt}, {"kind", kText}, {"direction", kText},
        {"pageable_host_memory", kFlag}}},
      {ExportTable::kCpuOps, "cpu_ops",
       {{"name", kText}, {"start_ns", kInt}, {"duration_ns", kInt}, {"pid", kInt}, {"tid", kInt},
        {"external_id", kInt}, {"category", kText}}},
      {ExportTable::kSteps, "steps", {{"step_number", kInt}, {"start_ns", kInt}, {"duration_ns", kInt}, {"tid", kInt}}},
      {ExportTable::kSamples, "samples",
       {{"series", kInt}, {"metric", kText}, {"source_name", kText}, {"gpu_index", kInt}, {"gpu_uuid", kText},
        {"gpu_name", kText}, {"pci_bus_id", kText}, {"gpu_instance_id", kInt}, {"mig_profile", kText},
        {"pid", kInt}, {"process_name", kText}, {"hostname", kText}, {"pod", kText}, {"namespace", kText},
        {"container", kText}, {"labels", kText}, {"time_ns", kInt}, {"value", kNum, true}}},
  };
}

Status WriteKernels(const Profile& p, TableSink& sink) {
  std::vector<ExportCell> row;
  for (const Kernel& k : p.kernels) {
    std::string_view collective;
    if (k.collective_index >= 0 && static_cast<size_t>(k.collective_index) < p.collectives.size())
      collective = p.collectives[k.collective_index].collective_name;
    row = {p.Name(k.name), k.start_ns, k.duration_ns, int64_t{k.device}, k.stream, k.correlation_id,
           k.external_id, int64_t{k.grid[0]}, int64_t{k.grid[1]}, int64_t{k.grid[2]}, int64_t{k.block[0]},
           int64_t{k.block[1]}, int64_t{k.block[2]}, int64_t{k.registers_per_thread}, k.shared_memory_bytes,
           k.blocks_per_sm, k.warps_per_sm, k.est_achieved_occupancy_pct, collective};
    const KernelCounters* counters =
        k.counters_index >= 0 && static_cast<size_t>(k.counters_index) < p.kernel_counters.size()
            ? &p.kernel_counters[k.counters_index]
            : nullptr;
    for (const auto& [name, member] : kKernelCounterColumns) {
      const std::optional<double>* value = counters != nullptr ? &(counters->*member) : nullptr;
      if (value != nullptr && value->has_value() && std::isfinite(**value)) row.emplace_back(**value);
      else row.emplace_back(std::monostate{});
    }
    KRAKEN_RETURN_IF_ERROR(sink.Row(row));
  }
  return Status::Ok();
}

Status WriteMemoryOps(const Profile& p, TableSink& sink) {
  for (const MemoryOp& m : p.memory_ops) {
    const ExportCell row[] = {p.Name(m.name), m.start_ns, m.duration_ns, int64_t{m.device}, m.stream,
                              m.correlation_id, m.bytes, std::string_view(MemoryOpKindName(m.kind)),
                              std::string_view(CopyDirectionName(m.direction)), m.pageable_host_memory};
    KRAKEN_RETURN_IF_ERROR(sink.Row(row));
  }
  return Status::Ok();
}

Status WriteCpuOps(const Profile& p, TableSink& sink) {
  for (const CpuOp& c : p.cpu_ops) {
    const ExportCell row[] = {p.Name(c.name), c.start_ns, c.duration_ns, c.pid, c.tid, c.external_id,
                              std::string_view(CpuOpCategoryName(c.category))};
    KRAKEN_RETURN_IF_ERROR(sink.Row(row));
  }
  return Status::Ok();
}

Status WriteSteps(const Profile& p, TableSink& sink) {
  for (const StepAnnotation& s : p.steps) {
    const ExportCell row[] = {s.step_number, s.start_ns, s.duration_ns, s.tid};
    KRAKEN_RETURN_IF_ERROR(sink.Row(row));
  }
  return Status::Ok();
}

Status WriteSamples(const Profile& p, const SampleReader& read_samples, TableSink& sink) {
  std::vector<ExportCell> row;
  for (size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    const SeriesEntity& e = s.entity;
    std::string labels;
    for (const auto& [key, value] : e.labels) labels += (labels.empty() ? "" : ";") + key + "=" + value;
    KRAKEN_ASSIGN_OR_RETURN(std::vector<Sample> samples, read_samples(i));
    // Everything before time_ns is the same on every row of the series.
    row = {static_cast<int64_t>(i), std::string_view(GetMetricInfo(s.metric).name), s.source_name,
           int64_t{e.gpu_index}, e.gpu_uuid, e.gpu_name, e.pci_bus_id, int64_t{e.gpu_instance_id}, e.mig_profile,
           int64_t{e.pid}, e.process_name, e.hostname, e.pod, e.namespace_name, e.container, labels,
           int64_t{0}, std::monostate{}};
    for (const Sample& sample : samples) {
      row[16] = sample.time_ns;
      // NaN and infinities are null, like JSON's null.
      row[17] = std::isfinite(sample.value) ? ExportCell(sample.value) : ExportCell(std::monostate{});
      KRAKEN_RETURN_IF_ERROR(sink.Row(row));
    }
  }
  return Status::Ok();
}

}  // namespace

const std::vector<ExportTableInfo>& ExportTables() {
  static const std::vector<ExportTableInfo> tables = MakeTables();
  return tables;
}

const ExportTableInfo* FindExportTable(std::string_view name) {
  for (const ExportTableInfo& t : ExportTables())
    if (name == t.name) return &t;
  return nullptr;
}

bool ExportTableHasRows(const Profile& p, ExportTable table) {
  switch (table) {
    case ExportTable::kKernels: return !p.kernels.empty();
    case ExportTable::kMemoryOps: return !p.memory_ops.empty();
    case ExportTable::kCpuOps: return !p.cpu_ops.empty();
    case ExportTable::kSteps: return !p.steps.empty();
    case ExportTable::kSamples: return !p.series.empty();
  }
  return false;
}

Status WriteExportTable(const Profile& profile, ExportTable table, const SampleReader& samples, TableSink& sink) {
  switch (table) {
    case ExportTable::kKernels: return WriteKernels(profile, sink);
    case ExportTable::kMemoryOps: return WriteMemoryOps(profile, sink);
    case ExportTable::kCpuOps: return WriteCpuOps(profile, sink);
    case ExportTable::kSteps: return WriteSteps(profile, sink);
    case ExportTable::kSamples: return WriteSamples(profile, samples, sink);
  }
  return Status::Ok();
}

}  // namespace kraken
