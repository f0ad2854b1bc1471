// Writing and reading the tables of one profile (schema.cc). Every function runs inside
// the caller's transaction; none begins or commits one.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/profile.h"
#include "store/database.h"
#include "store/store.h"

namespace kraken::store {

// Samples per stored block: a 10 Hz series fills one in 51 s; a block of a steady gauge
// packs into 1-2 KB, under a 4 KiB page (docs/store.md measures the choice).
inline constexpr size_t kBlockSamples = 512;

// The row counts and time span kept in `profiles` so that listing needs no scan.
struct ProfileTotals {
  int64_t devices = 0;
  int64_t kernels = 0;
  int64_t memory_ops = 0;
  int64_t cpu_ops = 0;
  int64_t runtime_calls = 0;
  int64_t series = 0;
  int64_t samples = 0;
  std::optional<TimeNs> start_ns;
  std::optional<TimeNs> end_ns;
  void Extend(TimeNs begin, TimeNs end);
};
ProfileTotals ComputeTotals(const Profile& profile);

// Who writes a live profile, so that a later open can tell an abandoned one.
struct ProfileOwner {
  std::string host;
  int64_t pid = -1;
  std::string start;  // the process's start time (/proc/PID/stat), against pid reuse
};
ProfileOwner CurrentProcessOwner();
// False only when the owner ran on this host and is gone (or its pid was reused).
bool OwnerMayBeAlive(const ProfileOwner& owner);

// Inserts the profiles row (complete = 0) with its attributes; returns the new id.
Result<int64_t> InsertProfileRow(Db& db, const ProfileMetadata& metadata, std::string_view kind,
                                 const std::optional<ProfileOwner>& owner, TimeNs created_ns);
// Stores the totals and sets complete = 1: the profile becomes visible at the commit.
Status MarkComplete(Db& db, int64_t id, const ProfileTotals& totals);
Status WriteDevices(Db& db, int64_t id, const std::vector<DeviceInfo>& devices);
// Strings, events, counters, collectives, ranges, declarations, labels, import counters.
Status WriteEvents(Db& db, int64_t id, const Profile& profile);
Status WriteSeries(Db& db, int64_t id, const std::vector<Series>& series);
// Deletes every row of the profile (any completeness).
Status DeleteProfileRows(Db& db, int64_t id);

// One series row (+ its labels); returns the series id.
Result<int64_t> InsertSeriesRow(Db& db, int64_t profile_id, int64_t seq, Metric metric,
                                std::string_view source_name, const SeriesEntity& entity);

// Writes sample blocks with one prepared statement.
class BlockWriter {
 public:
  static Result<BlockWriter> Create(Db& db);
  Status Write(int64_t series_id, int64_t seq, std::span<const Sample> samples);

 private:
  explicit BlockWriter(Statement insert) : insert_(std::move(insert)) {}
  Statement insert_;
};

// Fills `profile` (expected empty) from the tables of profile `id`; without `samples` the
// series come empty.
Status ReadProfileTables(Db& db, int64_t id, bool samples, Profile* profile);
// Its parts in profile_records_reader.cc: kernel counters, collectives, profiler ranges,
// metric declarations, kernel labels, import counters; and the series with their samples.
Status ReadRecordTables(Db& db, int64_t id, Profile* profile);
Status ReadSeriesTables(Db& db, int64_t id, bool samples, Profile* profile);
// The series table's entity columns, in the order ReadEntityColumns reads them.
inline constexpr const char* kEntityColumns =
    "gpu_index, gpu_uuid, gpu_name, pci_bus_id, gpu_instance_id, mig_profile, pid, process_name, hostname, pod, "
    "namespace_name, container";
SeriesEntity ReadEntityColumns(const Statement& stmt, int first_column);
Status ReadSeriesLabels(Db& db, int64_t series_id, SeriesEntity* entity);
// Appends the decoded samples of a series' blocks that may hold times in [start, end].
Status ReadSeriesBlocks(Db& db, int64_t series_id, TimeNs start_ns, TimeNs end_ns,
                        std::vector<Sample>* samples);

// Reduces the series' samples in [start, end] to at most `max_points` equal time slices
// (downsample.cc), decoding only the blocks that do not fit one slice.
Status ReadSeriesDownsampled(Db& db, int64_t series_id, TimeNs start_ns, TimeNs end_ns, size_t max_points,
                             std::vector<DownsampledPoint>* points);

// "?, ?, ?" for an INSERT of `count` columns.
std::string Placeholders(int count);
TimeNs NowNs();

}  // namespace kraken::store
