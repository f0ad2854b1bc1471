#include "store/store.h"

#include <filesystem>

#include "store/live_profile.h"
#include "store/profile_tables.h"
#include "store/schema.h"
#include "store/pg/pg_schema.h"
#include "store/sqlite_db.h"

namespace kraken {

using store::ReadTransaction;
using store::RowReader;
using store::Statement;
using store::WriteTransaction;

namespace {

// Free pages above this share of the file are handed back after a retention pass.
constexpr double kVacuumFreeShare = 0.25;

Status UnknownProfile(const std::string& path, int64_t id) {
  return NotFound(path + ": no profile " + std::to_string(id) + " (see `kraken list`)");
}

}  // namespace

ProfileStore::ProfileStore(std::unique_ptr<store::Db> db, bool read_only)
    : db_(std::move(db)), read_only_(read_only) {}

ProfileStore::~ProfileStore() {
  std::vector<int64_t> ids;
  for (const auto& [id, live] : live_) ids.push_back(id);
  for (int64_t id : ids) (void)Abort(id);
}

const std::string& ProfileStore::path() const { return db_->path(); }

bool ProfileStore::connection_lost() const { return db_->ConnectionLost(); }

namespace {

Result<std::unique_ptr<store::Db>> OpenSqliteStore(const std::string& path, const StoreOptions& options) {
  if (!options.read_only) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) return IoError(path + ": cannot create its folder: " + ec.message());
  }
  KRAKEN_ASSIGN_OR_RETURN(auto db, store::SqliteDb::Open(path, options.read_only, options.busy_timeout_ms));
  KRAKEN_RETURN_IF_ERROR(store::PrepareSchema(*db, !options.read_only));
  // 32 MiB of page cache: the sample-block index stays in memory during a long ingest.
  KRAKEN_RETURN_IF_ERROR(db->Exec("PRAGMA cache_size = -32768"));
  // With WAL, NORMAL syncs at checkpoints only: a killed process loses nothing committed
  // and a power loss may lose the last commits, never the database (docs/store.md).
  if (!options.read_only) KRAKEN_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous = NORMAL"));
  return std::unique_ptr<store::Db>(std::move(db));
}

}  // namespace

Result<std::unique_ptr<ProfileStore>> ProfileStore::Open(const std::string& path, const StoreOptions& options) {
  std::unique_ptr<store::Db> db;
  if (store::IsPostgresUrl(path)) {
    KRAKEN_ASSIGN_OR_RETURN(db, store::pg::OpenPgStore(path, !options.read_only));
  } else {
    KRAKEN_ASSIGN_OR_RETURN(db, OpenSqliteStore(path, options));
  }
  std::unique_ptr<ProfileStore> store(new ProfileStore(std::move(db), options.read_only));
  if (!options.read_only) KRAKEN_RETURN_IF_ERROR(store->CleanUpAbandonedProfiles());
  return store;
}

Status ProfileStore::CleanUpAbandonedProfiles() {
  std::vector<int64_t> abandoned;
  {
    KRAKEN_ASSIGN_OR_RETURN(
        Statement select,
        db_->Prepare("SELECT id, owner_host, owner_pid, owner_start FROM profiles WHERE complete = 0"));
    while (true) {
      KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row) break;
      RowReader r(select);
      int64_t id = r.Int();
      store::ProfileOwner owner;
      owner.host = r.Text();
      std::optional<int64_t> pid = r.OptionalInt();
      owner.start = r.Text();
      if (!pid || !store::OwnerMayBeAlive({owner.host, *pid, owner.start})) abandoned.push_back(id);
    }
  }
  if (abandoned.empty()) return Status::Ok();
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  for (int64_t id : abandoned) KRAKEN_RETURN_IF_ERROR(store::DeleteProfileRows(*db_, id));
  KRAKEN_RETURN_IF_ERROR(txn.Commit());
  cleaned_up_on_open_ = static_cast<int64_t>(abandoned.size());
  return Status::Ok();
}

Result<int64_t> ProfileStore::SaveProfile(const Profile& profile) {
  if (read_only_) return IoError(path() + ": opened read-only");
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  KRAKEN_ASSIGN_OR_RETURN(int64_t id,
                          store::InsertProfileRow(*db_, profile.metadata, "import", std::nullopt, store::NowNs()));
  KRAKEN_RETURN_IF_ERROR(store::WriteDevices(*db_, id, profile.devices));
  KRAKEN_RETURN_IF_ERROR(store::WriteEvents(*db_, id, profile));
  KRAKEN_RETURN_IF_ERROR(store::WriteSeries(*db_, id, profile.series));
  KRAKEN_RETURN_IF_ERROR(store::MarkComplete(*db_, id, store::ComputeTotals(profile)));
  KRAKEN_RETURN_IF_ERROR(txn.Commit());
  return id;
}

Result<Profile> ProfileStore::LoadProfile(int64_t id, const LoadOptions& options) {
  KRAKEN_ASSIGN_OR_RETURN(ReadTransaction txn, ReadTransaction::Begin(*db_));
  KRAKEN_RETURN_IF_ERROR(ReadInfo(id, true).status());
  Profile profile;
  KRAKEN_RETURN_IF_ERROR(store::ReadProfileTables(*db_, id, options.samples, &profile));
  return profile;
}

Result<StoredProfileInfo> ProfileStore::ReadInfo(int64_t id, bool require_complete) {
  KRAKEN_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT id, created_ns, kind, source, format, hostname, kernel_count, memory_op_count, "
                   "cpu_op_count, runtime_call_count, series_count, sample_count, start_ns, end_ns, complete "
                   "FROM profiles WHERE id = ?"));
  KRAKEN_ASSIGN_OR_RETURN(bool found, select.Int(id).Step());
  if (!found || (require_complete && select.ColumnInt(14) == 0)) return UnknownProfile(path(), id);
  RowReader r(select);
  StoredProfileInfo info;
  info.id = r.Int();
  info.created_ns = r.Int();
  info.kind = r.Text();
  info.source = r.Text();
  info.format = r.Text();
  info.hostname = r.Text();
  info.kernels = r.Int();
  info.memory_ops = r.Int();
  info.cpu_ops = r.Int();
  info.runtime_calls = r.Int();
  info.series = r.Int();
  info.samples = r.Int();
  info.start_ns = r.OptionalInt();
  info.end_ns = r.OptionalInt();
  KRAKEN_ASSIGN_OR_RETURN(Statement devices,
                          db_->Prepare("SELECT name FROM devices WHERE profile_id = ? ORDER BY seq"));
  devices.Int(id);
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, devices.Step());
    if (!row) break;
    info.device_names.push_back(devices.ColumnText(0));
  }
  return info;
}

Result<StoredProfileInfo> ProfileStore::GetProfileInfo(int64_t id) {
  KRAKEN_ASSIGN_OR_RETURN(ReadTransaction txn, ReadTransaction::Begin(*db_));
  return ReadInfo(id, true);
}

Result<std::vector<StoredProfileInfo>> ProfileStore::ListProfiles() {
  KRAKEN_ASSIGN_OR_RETURN(ReadTransaction txn, ReadTransaction::Begin(*db_));
  std::vector<int64_t> ids;
  {
    KRAKEN_ASSIGN_OR_RETURN(Statement select, db_->Prepare("SELECT id FROM profiles WHERE complete = 1 ORDER BY id"));
    while (true) {
      KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row) break;
      ids.push_back(select.ColumnInt(0));
    }
  }
  std::vector<StoredProfileInfo> infos;
  for (int64_t id : ids) {
    KRAKEN_ASSIGN_OR_RETURN(StoredProfileInfo info, ReadInfo(id, true));
    infos.push_back(std::move(info));
  }
  return infos;
}

Status ProfileStore::DeleteProfile(int64_t id) {
  if (read_only_) return IoError(path() + ": opened read-only");
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  KRAKEN_RETURN_IF_ERROR(ReadInfo(id, true).status());
  KRAKEN_RETURN_IF_ERROR(store::DeleteProfileRows(*db_, id));
  return txn.Commit();
}

Result<int64_t> ProfileStore::DeleteOlderThan(std::chrono::nanoseconds age) {
  return DeleteCreatedBefore(store::NowNs() - age.count());
}

Result<int64_t> ProfileStore::DeleteCreatedBefore(TimeNs cutoff_ns) {
  if (read_only_) return IoError(path() + ": opened read-only");
  int64_t deleted = 0;
  {
    KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
    std::vector<int64_t> ids;
    KRAKEN_ASSIGN_OR_RETURN(Statement select,
                            db_->Prepare("SELECT id FROM profiles WHERE complete = 1 AND created_ns < ?"));
    select.Int(cutoff_ns);
    while (true) {
      KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
      if (!row) break;
      ids.push_back(select.ColumnInt(0));
    }
    select.Reset();
    for (int64_t id : ids) KRAKEN_RETURN_IF_ERROR(store::DeleteProfileRows(*db_, id));
    KRAKEN_RETURN_IF_ERROR(txn.Commit());
    deleted = static_cast<int64_t>(ids.size());
  }
  // PostgreSQL's autovacuum reclaims the space of deleted rows by itself.
  if (db_->dialect() != store::Dialect::kSqlite) return deleted;
  // Freed pages are reused by later writes; once they are a large share of the file they
  // go back to the file system (incremental vacuum: no full rewrite, no 2x disk space).
  KRAKEN_ASSIGN_OR_RETURN(int64_t free_pages, db_->QueryInt("PRAGMA freelist_count"));
  KRAKEN_ASSIGN_OR_RETURN(int64_t pages, db_->QueryInt("PRAGMA page_count"));
  if (pages > 0 && static_cast<double>(free_pages) > kVacuumFreeShare * static_cast<double>(pages))
    KRAKEN_RETURN_IF_ERROR(db_->Exec("PRAGMA incremental_vacuum"));
  return deleted;
}

}  // namespace kraken
