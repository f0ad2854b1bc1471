// The legacy scheduler API's registered workloads (table legacy_workloads, docs/store.md).
#include "store/profile_tables.h"
#include "store/database.h"
#include "store/store.h"

namespace kraken {

using store::RowReader;
using store::Statement;
using store::WriteTransaction;

Status ProfileStore::PutLegacyWorkload(const LegacyWorkloadRecord& r) {
  if (read_only_) return IoError(path() + ": opened read-only");
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  KRAKEN_ASSIGN_OR_RETURN(Statement insert,
                          db_->Prepare("INSERT INTO legacy_workloads VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(workload_id) "
                       "DO UPDATE SET kernel_type = excluded.kernel_type, arithmetic_intensity = "
                       "excluded.arithmetic_intensity, compute_ratio = excluded.compute_ratio, memory_ratio = "
                       "excluded.memory_ratio, mixed_ratio = excluded.mixed_ratio, description = "
                       "excluded.description, source = excluded.source, measured = excluded.measured, "
                       "data_source = excluded.data_source, profiled_at = excluded.profiled_at, profile_id = "
                       "excluded.profile_id, updated_ns = excluded.updated_ns"));
  insert.Text(r.workload_id).Text(r.kernel_type).OptionalDouble(r.arithmetic_intensity);
  insert.Double(r.compute_ratio).Double(r.memory_ratio).Double(r.mixed_ratio).Text(r.description);
  insert.Text(r.source).Int(r.measured ? 1 : 0).Text(r.data_source).Text(r.profiled_at);
  insert.OptionalInt(r.profile_id).Int(store::NowNs());
  KRAKEN_RETURN_IF_ERROR(insert.Run());
  return txn.Commit();
}

Result<std::vector<LegacyWorkloadRecord>> ProfileStore::ListLegacyWorkloads() {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT workload_id, kernel_type, arithmetic_intensity, compute_ratio, memory_ratio, mixed_ratio, "
                   "description, source, measured, data_source, profiled_at, profile_id FROM legacy_workloads "
                   "ORDER BY workload_id"));
  std::vector<LegacyWorkloadRecord> records;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    RowReader read(select);
    LegacyWorkloadRecord& r = records.emplace_back();
    r.workload_id = read.Text();
    r.kernel_type = read.Text();
    r.arithmetic_intensity = read.OptionalDouble();
    r.compute_ratio = read.Double();
    r.memory_ratio = read.Double();
    r.mixed_ratio = read.Double();
    r.description = read.Text();
    r.source = read.Text();
    r.measured = read.Bool();
    r.data_source = read.Text();
    r.profiled_at = read.Text();
    r.profile_id = read.OptionalInt();
  }
  return records;
}

}  // namespace kraken
