// Series rows, their labels and their packed sample blocks.
#include <algorithm>

#include "store/profile_tables.h"
#include "store/sample_codec.h"

namespace kraken::store {

Result<int64_t> InsertSeriesRow(Db& db, int64_t profile_id, int64_t seq, Metric metric,
                                std::string_view source_name, const SeriesEntity& e) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement insert,
      db.Prepare("INSERT INTO series(profile_id, seq, metric, source_name, gpu_index, gpu_uuid, gpu_name, "
                 "pci_bus_id, gpu_instance_id, mig_profile, pid, process_name, hostname, pod, namespace_name, "
                 "container) VALUES(" + Placeholders(16) + ") RETURNING id"));
  insert.Int(profile_id).Int(seq).Text(GetMetricInfo(metric).name).Text(source_name).Int(e.gpu_index);
  insert.Text(e.gpu_uuid).Text(e.gpu_name).Text(e.pci_bus_id).Int(e.gpu_instance_id).Text(e.mig_profile);
  insert.Int(e.pid).Text(e.process_name).Text(e.hostname).Text(e.pod).Text(e.namespace_name).Text(e.container);
  KRAKEN_ASSIGN_OR_RETURN(bool inserted, insert.Step());
  if (!inserted) return Status(StatusCode::kInternal, db.path() + ": the series insert returned no id");
  int64_t series_id = insert.ColumnInt(0);
  insert.Reset();
  if (!e.labels.empty()) {
    KRAKEN_ASSIGN_OR_RETURN(Statement label, db.Prepare("INSERT INTO series_labels VALUES(?, ?, ?)"));
    for (const auto& [key, value] : e.labels)
      KRAKEN_RETURN_IF_ERROR(label.Int(series_id).Text(key).Text(value).Run());
  }
  return series_id;
}

Result<BlockWriter> BlockWriter::Create(Db& db) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement insert,
      db.Prepare("INSERT INTO sample_blocks(series_id, seq, sample_count, min_time_ns, max_time_ns, min_value, "
                 "max_value, sum_value, times, vals) VALUES(" + Placeholders(10) + ")"));
  return BlockWriter(std::move(insert));
}

Status BlockWriter::Write(int64_t series_id, int64_t seq, std::span<const Sample> samples) {
  EncodedBlock block = EncodeSamples(samples);
  insert_.Int(series_id).Int(seq).Int(block.count).Int(block.min_time_ns).Int(block.max_time_ns);
  insert_.Double(block.min_value).Double(block.max_value).Double(block.sum_value);
  insert_.Blob(block.times).Blob(block.values);
  return insert_.Run();
}

Status WriteSeries(Db& db, int64_t id, const std::vector<Series>& series) {
  KRAKEN_ASSIGN_OR_RETURN(BlockWriter blocks, BlockWriter::Create(db));
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    KRAKEN_ASSIGN_OR_RETURN(int64_t series_id,
                            InsertSeriesRow(db, id, static_cast<int64_t>(i), s.metric, s.source_name, s.entity));
    std::span<const Sample> samples(s.samples);
    for (size_t start = 0, seq = 0; start < samples.size(); start += kBlockSamples, ++seq) {
      size_t n = std::min(kBlockSamples, samples.size() - start);
      KRAKEN_RETURN_IF_ERROR(blocks.Write(series_id, static_cast<int64_t>(seq), samples.subspan(start, n)));
    }
  }
  return Status::Ok();
}

SeriesEntity ReadEntityColumns(const Statement& stmt, int first_column) {
  RowReader r(stmt, first_column);
  SeriesEntity e;
  e.gpu_index = r.Int32();
  e.gpu_uuid = r.Text();
  e.gpu_name = r.Text();
  e.pci_bus_id = r.Text();
  e.gpu_instance_id = r.Int32();
  e.mig_profile = r.Text();
  e.pid = r.Int();
  e.process_name = r.Text();
  e.hostname = r.Text();
  e.pod = r.Text();
  e.namespace_name = r.Text();
  e.container = r.Text();
  return e;
}

Status ReadSeriesLabels(Db& db, int64_t series_id, SeriesEntity* entity) {
  KRAKEN_ASSIGN_OR_RETURN(Statement select, db.Prepare("SELECT key, value FROM series_labels WHERE series_id = ?"));
  select.Int(series_id);
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    entity->labels[select.ColumnText(0)] = select.ColumnText(1);
  }
  return Status::Ok();
}

Status ReadSeriesBlocks(Db& db, int64_t series_id, TimeNs start_ns, TimeNs end_ns,
                        std::vector<Sample>* samples) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT sample_count, min_time_ns, max_time_ns, times, vals FROM sample_blocks "
                 "WHERE series_id = ? AND max_time_ns >= ? AND min_time_ns <= ? ORDER BY seq"));
  select.Int(series_id).Int(start_ns).Int(end_ns);
  std::vector<Sample> block;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    RowReader r(select);
    int64_t count = r.Int();
    TimeNs min_time = r.Int(), max_time = r.Int();
    std::string_view times = r.Blob(), values = r.Blob();
    if (min_time >= start_ns && max_time <= end_ns) {
      KRAKEN_RETURN_IF_ERROR(DecodeSamples(times, values, count, samples));
      continue;
    }
    block.clear();
    KRAKEN_RETURN_IF_ERROR(DecodeSamples(times, values, count, &block));
    for (const Sample& s : block)
      if (s.time_ns >= start_ns && s.time_ns <= end_ns) samples->push_back(s);
  }
  return Status::Ok();
}

}  // namespace kraken::store
