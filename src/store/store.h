// The profile store: profiles, devices, events and metric series in one SQLite file, or in
// a PostgreSQL database many writers share (`postgresql://...`; docs/store.md). Imports are saved whole in one transaction; live captures are
// begun, appended to batch by batch and committed. Until Commit a profile is invisible to
// List/Load, and a profile left incomplete by a killed process is deleted the next time
// the store is opened for writing.
//
// One ProfileStore is one database connection: use it from one thread at a time. Any
// number of processes may read while one writes (SQLite's WAL, PostgreSQL's MVCC); SQLite's
// writers take turns (busy timeout), PostgreSQL's run side by side.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"
#include "model/sample_batch.h"

namespace kraken {

namespace store {
class Db;
struct LiveProfile;
}  // namespace store

struct LoadOptions {
  // False: series come with their entities but no samples (show, streaming export).
  bool samples = true;
};

struct StoreOptions {
  bool read_only = false;
  int busy_timeout_ms = 5000;  // how long a write waits for another writer
};

// One row of `kraken list`.
struct StoredProfileInfo {
  int64_t id = 0;
  TimeNs created_ns = 0;  // Unix epoch ns when it was saved or begun
  std::string kind;       // "import" (a file, SaveProfile) or "live" (BeginProfile..Commit)
  std::string source;
  std::string format;
  std::string hostname;
  std::vector<std::string> device_names;  // one per device, in the profile's order
  int64_t kernels = 0;
  int64_t memory_ops = 0;
  int64_t cpu_ops = 0;
  int64_t runtime_calls = 0;
  int64_t series = 0;
  int64_t samples = 0;
  // First and last timestamp of anything timed (kernels when their timestamps are real,
  // memory ops, CPU ops, runtime calls, samples); absent when nothing is.
  std::optional<TimeNs> start_ns;
  std::optional<TimeNs> end_ns;
  TimeNs duration_ns() const { return start_ns && end_ns ? *end_ns - *start_ns : 0; }
};

// Which series a query wants; unset fields match anything.
struct EntityFilter {
  std::optional<int32_t> gpu_index;
  std::optional<std::string> gpu_uuid;
  std::optional<int32_t> gpu_instance_id;
  std::optional<int64_t> pid;
  std::optional<std::string> hostname;
  bool Matches(const SeriesEntity& entity) const;
};

struct SeriesQuery {
  int64_t profile_id = 0;
  Metric metric = Metric::kGpuUtilPct;
  std::optional<std::string> source_name;  // needed to pick one kOther series
  EntityFilter entity;
  TimeNs start_ns = std::numeric_limits<TimeNs>::min();  // inclusive
  TimeNs end_ns = std::numeric_limits<TimeNs>::max();    // inclusive
  // 0: every sample. N: at most N points, each the mean/min/max of an equal slice of time
  // between the first and last sample in range (empty slices give no point).
  size_t max_points = 0;
};

struct DownsampledPoint {
  TimeNs time_ns = 0;  // start of the slice
  double mean = 0;
  double min = 0;
  double max = 0;
  int64_t count = 0;
};

struct SeriesQueryResult {
  int64_t series_id = 0;
  Metric metric = Metric::kOther;
  std::string source_name;
  SeriesEntity entity;
  std::vector<Sample> samples;          // full resolution (max_points == 0)
  std::vector<DownsampledPoint> points;  // downsampled (max_points > 0)
};

// What `kraken show` prints per series, from the blocks' stored aggregates (no decoding).
struct StoredSeriesStats {
  int64_t series_id = 0;
  Metric metric = Metric::kOther;
  std::string source_name;
  SeriesEntity entity;
  int64_t samples = 0;
  TimeNs first_ns = 0;
  TimeNs last_ns = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
};

// A workload a scheduler client registered through the legacy :7070 API (docs/api.md),
// as the server answers it: kept so that it outlives a restart.
struct LegacyWorkloadRecord {
  std::string workload_id;
  std::string kernel_type;  // COMPUTE_BOUND, MEMORY_BOUND, MIXED, UNKNOWN
  std::optional<double> arithmetic_intensity;  // FLOP/byte; absent: not known
  double compute_ratio = 0;
  double memory_ratio = 0;
  double mixed_ratio = 0;
  std::string description;
  std::string source;  // measured, default, manual, unknown
  bool measured = false;
  std::string data_source;
  std::string profiled_at;  // "YYYY-MM-DD HH:MM:SS" UTC, or empty
  std::optional<int64_t> profile_id;  // the stored profile a measured one came from
};

struct UploadSave {
  std::vector<int64_t> ids;
  bool duplicate = false;  // stored by an earlier upload of the same body
};

class ProfileStore {
 public:
  static Result<std::unique_ptr<ProfileStore>> Open(const std::string& path, const StoreOptions& options = {});
  ~ProfileStore();  // aborts live profiles not committed
  ProfileStore(const ProfileStore&) = delete;
  ProfileStore& operator=(const ProfileStore&) = delete;

  // Stores a whole profile in one transaction; it is listed once this returns.
  Result<int64_t> SaveProfile(const Profile& profile);
  // Saves the profiles of one upload keyed by `upload_key` (its body's SHA-256), unless an
  // upload with that key is stored already: then its ids, with duplicate set, and nothing
  // written (upload_keys.cc, docs/upload.md).
  Result<UploadSave> SaveUpload(std::vector<Profile>& profiles, const std::string& upload_key);
  // The ids of the stored upload with that key; empty when there is none.
  Result<std::vector<int64_t>> FindUpload(const std::string& upload_key);
  Result<Profile> LoadProfile(int64_t id, const LoadOptions& options = {});

  // Live ingest. AppendBatch buffers samples per series and writes packed blocks in
  // batched transactions; Commit writes the rest and makes the profile visible.
  Result<int64_t> BeginProfile(const ProfileMetadata& metadata, const std::vector<DeviceInfo>& devices);
  Status AppendBatch(int64_t id, const SampleBatch& batch);
  // Adds a timeline to a live profile before its Commit, once: kernels, memory ops, CPU ops,
  // runtime calls, steps, syncs, their strings, import counters and metadata attributes
  // (`kraken profile --kernels` attaches the traced kernels to the run's NVML samples).
  Status AttachEvents(int64_t id, const Profile& events);
  Status Commit(int64_t id);
  Status Abort(int64_t id);

  Result<std::vector<StoredProfileInfo>> ListProfiles();
  Result<StoredProfileInfo> GetProfileInfo(int64_t id);
  Result<std::vector<SeriesQueryResult>> QuerySeries(const SeriesQuery& query);
  Result<std::vector<StoredSeriesStats>> ListSeries(int64_t id);
  // The samples of one series (by SeriesQueryResult/StoredSeriesStats::series_id), in order.
  Result<std::vector<Sample>> ReadSeriesSamples(int64_t series_id);

  // Retention: deletes complete profiles created before now - age (or before cutoff_ns)
  // and returns how many; then gives free pages back when they are a quarter of the file.
  Result<int64_t> DeleteOlderThan(std::chrono::nanoseconds age);
  Result<int64_t> DeleteCreatedBefore(TimeNs cutoff_ns);
  Status DeleteProfile(int64_t id);

  // The legacy API's registered workloads (store/legacy_workloads.cc): one row per id, a
  // later Put of the same id replaces it. List returns them by id.
  Status PutLegacyWorkload(const LegacyWorkloadRecord& record);
  Result<std::vector<LegacyWorkloadRecord>> ListLegacyWorkloads();

  const std::string& path() const;
  // The database connection is gone (PostgreSQL restarted or unreachable): open anew.
  bool connection_lost() const;
  // Incomplete profiles of dead writers deleted when this store was opened.
  int64_t cleaned_up_on_open() const { return cleaned_up_on_open_; }

 private:
  ProfileStore(std::unique_ptr<store::Db> db, bool read_only);
  Status CleanUpAbandonedProfiles();
  Status FlushLive(store::LiveProfile& live, bool all);
  Result<StoredProfileInfo> ReadInfo(int64_t id, bool require_complete);

  std::unique_ptr<store::Db> db_;
  bool read_only_;
  int64_t cleaned_up_on_open_ = 0;
  std::map<int64_t, std::unique_ptr<store::LiveProfile>> live_;
};

}  // namespace kraken
