// Downsampled series reads: equal time slices between the first and last sample in range,
// each reduced to mean/min/max/count. A block that lies inside the range and inside one
// slice is reduced from its stored aggregates without being decoded: over a day at 10 Hz
// to 1000 points a slice spans 864 samples, so most blocks (512) are never decoded.
#include <algorithm>
#include <cmath>

#include "store/profile_tables.h"
#include "store/sample_codec.h"

namespace kraken::store {
namespace {

struct BlockMeta {
  int64_t row_id = 0;
  int64_t count = 0;
  TimeNs min_time_ns = 0;
  TimeNs max_time_ns = 0;
  double min_value = 0;
  double max_value = 0;
  double sum_value = 0;
  bool inside = false;  // every sample is within [start, end]
};

class Slices {
 public:
  Slices(TimeNs first, TimeNs last, size_t count)
      : first_(static_cast<uint64_t>(first)),
        // Unsigned: the span of two int64 times may not fit in an int64.
        width_((static_cast<uint64_t>(last) - static_cast<uint64_t>(first)) / count + 1),
        points_(count) {}
  size_t Index(TimeNs t) const { return (static_cast<uint64_t>(t) - first_) / width_; }
  void Add(TimeNs t, double value) { Merge(Index(t), 1, value, value, value); }
  void Merge(size_t slice, int64_t count, double sum, double min, double max) {
    DownsampledPoint& p = points_[slice];
    p.min = p.count == 0 ? min : std::min(p.min, min);
    p.max = p.count == 0 ? max : std::max(p.max, max);
    p.mean += sum;  // the sum until Finish
    p.count += count;
  }
  std::vector<DownsampledPoint> Finish() {
    std::vector<DownsampledPoint> out;
    for (size_t i = 0; i < points_.size(); ++i) {
      DownsampledPoint& p = points_[i];
      if (p.count == 0) continue;
      p.time_ns = static_cast<TimeNs>(first_ + i * width_);
      p.mean /= static_cast<double>(p.count);
      out.push_back(p);
    }
    return out;
  }

 private:
  uint64_t first_;
  uint64_t width_;
  std::vector<DownsampledPoint> points_;
};

Status DecodeBlock(Statement& blob, int64_t row_id, TimeNs start, TimeNs end, std::vector<Sample>* samples) {
  blob.Int(row_id);
  KRAKEN_ASSIGN_OR_RETURN(bool found, blob.Step());
  if (!found) return InvalidInput("sample block " + std::to_string(row_id) + " vanished");
  std::vector<Sample> all;
  Status status = DecodeSamples(blob.ColumnBlob(1), blob.ColumnBlob(2), blob.ColumnInt(0), &all);
  blob.Reset();
  KRAKEN_RETURN_IF_ERROR(status);
  for (const Sample& s : all)
    if (s.time_ns >= start && s.time_ns <= end) samples->push_back(s);
  return Status::Ok();
}

}  // namespace

Status ReadSeriesDownsampled(Db& db, int64_t series_id, TimeNs start, TimeNs end, size_t max_points,
                             std::vector<DownsampledPoint>* points) {
  // Pass 1: the blocks' aggregates only (the blobs stay on their overflow pages).
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT id, sample_count, min_time_ns, max_time_ns, min_value, max_value, sum_value "
                 "FROM sample_blocks WHERE series_id = ? AND max_time_ns >= ? AND min_time_ns <= ? ORDER BY seq"));
  KRAKEN_ASSIGN_OR_RETURN(Statement blob,
                          db.Prepare("SELECT sample_count, times, vals FROM sample_blocks WHERE id = ?"));
  select.Int(series_id).Int(start).Int(end);
  std::vector<BlockMeta> blocks;
  std::vector<Sample> edge;  // samples in range of the blocks that straddle the range
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    RowReader r(select);
    BlockMeta& b = blocks.emplace_back();
    b.row_id = r.Int();
    b.count = r.Int();
    b.min_time_ns = r.Int();
    b.max_time_ns = r.Int();
    b.min_value = r.Double();
    b.max_value = r.Double();
    b.sum_value = r.Double();
    b.inside = b.min_time_ns >= start && b.max_time_ns <= end;
    if (!b.inside) KRAKEN_RETURN_IF_ERROR(DecodeBlock(blob, b.row_id, start, end, &edge));
  }
  // The first and last sample in range fix the slices.
  bool any = !edge.empty();
  TimeNs first = any ? edge.front().time_ns : 0, last = first;
  for (const Sample& s : edge) first = std::min(first, s.time_ns), last = std::max(last, s.time_ns);
  for (const BlockMeta& b : blocks) {
    if (!b.inside || b.count == 0) continue;
    first = any ? std::min(first, b.min_time_ns) : b.min_time_ns;
    last = any ? std::max(last, b.max_time_ns) : b.max_time_ns;
    any = true;
  }
  points->clear();
  if (!any) return Status::Ok();

  // Pass 2: whole blocks by their aggregates where they fit one slice, else sample by sample.
  Slices slices(first, last, max_points);
  for (const Sample& s : edge) slices.Add(s.time_ns, s.value);
  std::vector<Sample> samples;
  for (const BlockMeta& b : blocks) {
    if (!b.inside || b.count == 0) continue;
    size_t slice = slices.Index(b.min_time_ns);
    // A block with a NaN has a NaN sum and NaN-free min/max: decode it to treat NaN alike.
    if (slice == slices.Index(b.max_time_ns) && !std::isnan(b.sum_value)) {
      slices.Merge(slice, b.count, b.sum_value, b.min_value, b.max_value);
      continue;
    }
    samples.clear();
    KRAKEN_RETURN_IF_ERROR(DecodeBlock(blob, b.row_id, start, end, &samples));
    for (const Sample& s : samples) slices.Add(s.time_ns, s.value);
  }
  *points = slices.Finish();
  return Status::Ok();
}

}  // namespace kraken::store
