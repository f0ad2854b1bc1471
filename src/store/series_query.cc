// Reading series back for the server, the dashboard and `kraken show/export`.
#include <cmath>
#include <limits>

#include "store/profile_tables.h"
#include "store/database.h"
#include "store/store.h"

namespace kraken {

using store::ReadTransaction;
using store::RowReader;
using store::Statement;

bool EntityFilter::Matches(const SeriesEntity& e) const {
  return (!gpu_index || *gpu_index == e.gpu_index) && (!gpu_uuid || *gpu_uuid == e.gpu_uuid) &&
         (!gpu_instance_id || *gpu_instance_id == e.gpu_instance_id) && (!pid || *pid == e.pid) &&
         (!hostname || *hostname == e.hostname);
}

Result<std::vector<SeriesQueryResult>> ProfileStore::QuerySeries(const SeriesQuery& query) {
  KRAKEN_ASSIGN_OR_RETURN(ReadTransaction txn, ReadTransaction::Begin(*db_));
  KRAKEN_RETURN_IF_ERROR(ReadInfo(query.profile_id, true).status());
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select, db_->Prepare("SELECT id, source_name, " + std::string(store::kEntityColumns) +
                                     " FROM series WHERE profile_id = ? AND metric = ? ORDER BY seq"));
  select.Int(query.profile_id).Text(GetMetricInfo(query.metric).name);
  std::vector<SeriesQueryResult> results;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    SeriesQueryResult result;
    result.series_id = select.ColumnInt(0);
    result.metric = query.metric;
    result.source_name = select.ColumnText(1);
    result.entity = store::ReadEntityColumns(select, 2);
    if (query.source_name && *query.source_name != result.source_name) continue;
    if (!query.entity.Matches(result.entity)) continue;
    results.push_back(std::move(result));
  }
  for (SeriesQueryResult& result : results) {
    KRAKEN_RETURN_IF_ERROR(store::ReadSeriesLabels(*db_, result.series_id, &result.entity));
    if (query.max_points > 0) {
      KRAKEN_RETURN_IF_ERROR(store::ReadSeriesDownsampled(*db_, result.series_id, query.start_ns, query.end_ns,
                                                          query.max_points, &result.points));
    } else {
      KRAKEN_RETURN_IF_ERROR(
          store::ReadSeriesBlocks(*db_, result.series_id, query.start_ns, query.end_ns, &result.samples));
    }
  }
  return results;
}

Result<std::vector<StoredSeriesStats>> ProfileStore::ListSeries(int64_t id) {
  KRAKEN_ASSIGN_OR_RETURN(ReadTransaction txn, ReadTransaction::Begin(*db_));
  KRAKEN_RETURN_IF_ERROR(ReadInfo(id, true).status());
  // Block aggregates answer without decoding a sample.
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT s.id, s.metric, s.source_name, COALESCE(SUM(b.sample_count), 0), MIN(b.min_time_ns), "
                   "MAX(b.max_time_ns), MIN(b.min_value), MAX(b.max_value), COALESCE(SUM(b.sum_value), 0), " +
                   std::string(store::kEntityColumns) +
                   " FROM series s LEFT JOIN sample_blocks b ON b.series_id = s.id WHERE s.profile_id = ? "
                   "GROUP BY s.id ORDER BY s.seq"));
  select.Int(id);
  std::vector<StoredSeriesStats> stats;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    RowReader r(select);
    StoredSeriesStats& s = stats.emplace_back();
    s.series_id = r.Int();
    s.metric = MetricFromName(r.Text());
    s.source_name = r.Text();
    s.samples = static_cast<int64_t>(r.Double());
    s.first_ns = r.Int();
    s.last_ns = r.Int();
    s.min = r.Double();
    s.max = r.Double();
    double sum = r.Double();
    s.mean = s.samples > 0 ? sum / static_cast<double>(s.samples) : std::nan("");
    s.entity = store::ReadEntityColumns(select, 9);
  }
  for (StoredSeriesStats& s : stats) KRAKEN_RETURN_IF_ERROR(store::ReadSeriesLabels(*db_, s.series_id, &s.entity));
  return stats;
}

Result<std::vector<Sample>> ProfileStore::ReadSeriesSamples(int64_t series_id) {
  KRAKEN_ASSIGN_OR_RETURN(ReadTransaction txn, ReadTransaction::Begin(*db_));
  KRAKEN_ASSIGN_OR_RETURN(Statement owner, db_->Prepare("SELECT profile_id FROM series WHERE id = ?"));
  KRAKEN_ASSIGN_OR_RETURN(bool found, owner.Int(series_id).Step());
  if (!found) return NotFound(path() + ": no series " + std::to_string(series_id));
  KRAKEN_RETURN_IF_ERROR(ReadInfo(owner.ColumnInt(0), true).status());
  std::vector<Sample> samples;
  KRAKEN_RETURN_IF_ERROR(store::ReadSeriesBlocks(*db_, series_id, std::numeric_limits<TimeNs>::min(),
                                                 std::numeric_limits<TimeNs>::max(), &samples));
  return samples;
}

}  // namespace kraken
