// Reads the per-kernel records, the source's declarations and the series of a profile.
#include <limits>

#include "store/profile_tables.h"
#include "store/row_loop.h"

namespace kraken::store {

Status ReadRecordTables(Db& db, int64_t id, Profile* p) {
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "*", "kernel_counters", id, [&](RowReader& r) {
    r.Int(), r.Int();  // profile_id, seq
    KernelCounters& c = p->kernel_counters.emplace_back();
    for (std::optional<double>* field :
         {&c.fp64_flops, &c.fp32_flops, &c.fp16_flops, &c.tensor_flops, &c.dram_bytes, &c.l2_bytes, &c.l1_bytes,
          &c.sm_throughput_pct, &c.dram_throughput_pct, &c.memory_throughput_pct, &c.tensor_pipe_active_pct,
          &c.achieved_occupancy_pct, &c.sm_clock_hz, &c.dram_clock_hz, &c.peak_fp32_flops_per_s,
          &c.peak_fp64_flops_per_s, &c.peak_dram_bytes_per_s, &c.peak_tensor_flops_per_s})
      *field = r.OptionalDouble();
    return Status::Ok();
  }));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "*", "collectives", id, [&](RowReader& r) {
    r.Int(), r.Int();
    CollectiveInfo& c = p->collectives.emplace_back();
    c.collective_name = r.Text();
    c.in_msg_nelems = r.Int();
    c.out_msg_nelems = r.Int();
    c.group_size = r.Int();
    c.dtype = r.Text();
    c.process_group_name = r.Text();
    c.process_group_description = r.Text();
    c.process_group_ranks = r.Text();
    return Status::Ok();
  }));
  KRAKEN_RETURN_IF_ERROR(
      ForEachRow(db, "name_id, start_ns, duration_ns, counters_index", "profiler_ranges", id, [&](RowReader& r) {
        ProfilerRange& range = p->profiler_ranges.emplace_back();
        int64_t name = r.Int();
        if (name < 0 || name >= static_cast<int64_t>(p->strings.size()))
          return InvalidInput("profile " + std::to_string(id) + ": profiler range names a string not stored");
        range.name = static_cast<StringId>(name);
        range.start_ns = r.Int();
        range.duration_ns = r.Int();
        range.counters_index = r.Int32();
        return Status::Ok();
      }));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(
      db, "range_seq, name, value", "profiler_range_counters", id,
      [&](RowReader& r) {
        int64_t range = r.Int();
        if (range < 0 || range >= static_cast<int64_t>(p->profiler_ranges.size()))
          return InvalidInput("profile " + std::to_string(id) + ": counter of a missing profiler range");
        std::string name = r.Text();
        p->profiler_ranges[static_cast<size_t>(range)].raw_counters[name] = r.Double();
        return Status::Ok();
      },
      "range_seq, name"));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(
      db, "source_name, type, help, metric, current_name", "metric_declarations", id, [&](RowReader& r) {
        MetricDeclaration& d = p->metric_declarations.emplace_back();
        d.source_name = r.Text();
        d.type = r.Text();
        d.help = r.Text();
        d.metric = MetricFromName(r.Text());
        d.current_name = r.Text();
        return Status::Ok();
      }));
  KRAKEN_RETURN_IF_ERROR(ForEachRow(db, "kernel, label, source", "kernel_labels", id, [&](RowReader& r) {
    KernelLabel& l = p->kernel_labels.emplace_back();
    l.kernel = r.Text();
    l.label = r.Text();
    l.source = r.Text();
    return Status::Ok();
  }));
  return ForEachRow(
      db, "name, value", "import_counters", id,
      [&](RowReader& r) {
        std::string name = r.Text();
        p->import_counters[name] = r.Int();
        return Status::Ok();
      },
      "name");
}

Status ReadSeriesTables(Db& db, int64_t id, bool samples, Profile* p) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT id, metric, source_name, " + std::string(kEntityColumns) +
                 " FROM series WHERE profile_id = ? ORDER BY seq"));
  select.Int(id);
  std::vector<int64_t> series_ids;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    series_ids.push_back(select.ColumnInt(0));
    Series& s = p->series.emplace_back();
    s.metric = MetricFromName(select.ColumnText(1));
    s.source_name = select.ColumnText(2);
    s.entity = ReadEntityColumns(select, 3);
  }
  for (size_t i = 0; i < series_ids.size(); ++i) {
    Series& s = p->series[i];
    KRAKEN_RETURN_IF_ERROR(ReadSeriesLabels(db, series_ids[i], &s.entity));
    if (!samples) continue;
    Status blocks = ReadSeriesBlocks(db, series_ids[i], std::numeric_limits<TimeNs>::min(),
                                     std::numeric_limits<TimeNs>::max(), &s.samples);
    if (!blocks.ok()) return blocks.WithContext("profile " + std::to_string(id) + ", series " + std::to_string(i));
  }
  return Status::Ok();
}

}  // namespace kraken::store
