#include "store/schema.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "store/database.h"

namespace kraken::store {
namespace {

using Migration = SchemaMigration;

// Tables keyed (profile_id, seq) are WITHOUT ROWID: a profile's rows sit together in key
// order, so loading one reads contiguous pages and deleting one is a range delete; seq
// keeps the model's vector order. Sample blocks are a rowid table because their rows are
// kilobytes (WITHOUT ROWID suits rows under ~1/20 of a page).
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE profiles(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_ns INTEGER NOT NULL,
  complete INTEGER NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  format TEXT NOT NULL,
  rank INTEGER,
  world_size INTEGER,
  distributed_backend TEXT NOT NULL,
  hostname TEXT NOT NULL,
  base_time_ns INTEGER NOT NULL,
  accelerator_vendor INTEGER NOT NULL,
  kernel_timestamps_valid INTEGER NOT NULL,
  owner_host TEXT,
  owner_pid INTEGER,
  owner_start TEXT,
  device_count INTEGER NOT NULL DEFAULT 0,
  kernel_count INTEGER NOT NULL DEFAULT 0,
  memory_op_count INTEGER NOT NULL DEFAULT 0,
  cpu_op_count INTEGER NOT NULL DEFAULT 0,
  runtime_call_count INTEGER NOT NULL DEFAULT 0,
  series_count INTEGER NOT NULL DEFAULT 0,
  sample_count INTEGER NOT NULL DEFAULT 0,
  start_ns INTEGER,
  end_ns INTEGER);
CREATE INDEX profiles_by_created ON profiles(complete, created_ns);
CREATE TABLE profile_attributes(profile_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(profile_id, key)) WITHOUT ROWID;
CREATE TABLE import_counters(profile_id INTEGER NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL,
  PRIMARY KEY(profile_id, name)) WITHOUT ROWID;
CREATE TABLE strings(profile_id INTEGER NOT NULL, id INTEGER NOT NULL, text TEXT NOT NULL,
  PRIMARY KEY(profile_id, id)) WITHOUT ROWID;
CREATE TABLE devices(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, device_index INTEGER NOT NULL,
  name TEXT NOT NULL, vendor INTEGER NOT NULL, uuid TEXT NOT NULL, pci_bus_id TEXT NOT NULL,
  architecture TEXT NOT NULL, sm_count INTEGER NOT NULL, compute_major INTEGER NOT NULL,
  compute_minor INTEGER NOT NULL, memory_bytes INTEGER NOT NULL, warp_size INTEGER NOT NULL,
  max_threads_per_sm INTEGER NOT NULL, registers_per_sm INTEGER NOT NULL,
  shared_memory_per_sm_bytes INTEGER NOT NULL, max_sm_clock_mhz REAL, max_mem_clock_mhz REAL,
  power_limit_w REAL, pcie_generation INTEGER, pcie_link_width INTEGER, driver_version TEXT NOT NULL,
  cuda_version TEXT NOT NULL, mig_enabled INTEGER NOT NULL, mig_enabled_pending INTEGER NOT NULL,
  minor_number INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE mig_instances(profile_id INTEGER NOT NULL, device_seq INTEGER NOT NULL, seq INTEGER NOT NULL,
  gpu_instance_id INTEGER NOT NULL, compute_instance_id INTEGER NOT NULL, profile TEXT NOT NULL,
  memory_bytes INTEGER NOT NULL, sm_count INTEGER NOT NULL,
  PRIMARY KEY(profile_id, device_seq, seq)) WITHOUT ROWID;
CREATE TABLE kernels(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL, external_id INTEGER NOT NULL, grid_x INTEGER NOT NULL,
  grid_y INTEGER NOT NULL, grid_z INTEGER NOT NULL, block_x INTEGER NOT NULL, block_y INTEGER NOT NULL,
  block_z INTEGER NOT NULL, registers_per_thread INTEGER NOT NULL, shared_memory_bytes INTEGER NOT NULL,
  blocks_per_sm REAL, warps_per_sm REAL, est_achieved_occupancy_pct REAL,
  counters_index INTEGER NOT NULL, collective_index INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE memory_ops(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL, bytes INTEGER NOT NULL, kind INTEGER NOT NULL, direction INTEGER NOT NULL,
  pageable_host_memory INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE cpu_ops(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  external_id INTEGER NOT NULL, category INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE runtime_calls(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,
  correlation_id INTEGER NOT NULL, external_id INTEGER NOT NULL, is_driver_api INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE steps(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, step_number INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, tid INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE syncs(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, device INTEGER NOT NULL, stream INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE kernel_counters(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL,
  fp64_flops REAL, fp32_flops REAL, fp16_flops REAL, tensor_flops REAL, dram_bytes REAL, l2_bytes REAL,
  l1_bytes REAL, sm_throughput_pct REAL, dram_throughput_pct REAL, memory_throughput_pct REAL,
  tensor_pipe_active_pct REAL, achieved_occupancy_pct REAL, sm_clock_hz REAL, dram_clock_hz REAL,
  peak_fp32_flops_per_s REAL, peak_fp64_flops_per_s REAL, peak_dram_bytes_per_s REAL,
  peak_tensor_flops_per_s REAL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE collectives(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, collective_name TEXT NOT NULL,
  in_msg_nelems INTEGER NOT NULL, out_msg_nelems INTEGER NOT NULL, group_size INTEGER NOT NULL,
  dtype TEXT NOT NULL, process_group_name TEXT NOT NULL, process_group_description TEXT NOT NULL,
  process_group_ranks TEXT NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE profiler_ranges(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, name_id INTEGER NOT NULL,
  start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, counters_index INTEGER NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE profiler_range_counters(profile_id INTEGER NOT NULL, range_seq INTEGER NOT NULL,
  name TEXT NOT NULL, value REAL,
  PRIMARY KEY(profile_id, range_seq, name)) WITHOUT ROWID;
CREATE TABLE metric_declarations(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, source_name TEXT NOT NULL,
  type TEXT NOT NULL, help TEXT NOT NULL, metric TEXT NOT NULL, current_name TEXT NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE kernel_labels(profile_id INTEGER NOT NULL, seq INTEGER NOT NULL, kernel TEXT NOT NULL,
  label TEXT NOT NULL, source TEXT NOT NULL,
  PRIMARY KEY(profile_id, seq)) WITHOUT ROWID;
CREATE TABLE series(id INTEGER PRIMARY KEY, profile_id INTEGER NOT NULL, seq INTEGER NOT NULL,
  metric TEXT NOT NULL, source_name TEXT NOT NULL, gpu_index INTEGER NOT NULL, gpu_uuid TEXT NOT NULL,
  gpu_name TEXT NOT NULL, pci_bus_id TEXT NOT NULL, gpu_instance_id INTEGER NOT NULL,
  mig_profile TEXT NOT NULL, pid INTEGER NOT NULL, process_name TEXT NOT NULL, hostname TEXT NOT NULL,
  pod TEXT NOT NULL, namespace_name TEXT NOT NULL, container TEXT NOT NULL);
CREATE UNIQUE INDEX series_by_profile ON series(profile_id, seq);
CREATE INDEX series_by_metric ON series(profile_id, metric);
CREATE TABLE series_labels(series_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY(series_id, key)) WITHOUT ROWID;
CREATE TABLE sample_blocks(id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL, seq INTEGER NOT NULL,
  sample_count INTEGER NOT NULL, min_time_ns INTEGER NOT NULL, max_time_ns INTEGER NOT NULL,
  min_value REAL, max_value REAL, sum_value REAL, times BLOB NOT NULL, vals BLOB NOT NULL);
CREATE UNIQUE INDEX sample_blocks_by_series ON sample_blocks(series_id, seq);
)sql";

// The workloads scheduler clients register through the legacy :7070 API (POST /register,
// POST /profile), so that they outlive a restart of `kraken serve`. profile_id names the
// stored profile a measured one was derived from; no foreign key, since retention may
// delete that profile and the derived figures stay valid.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE legacy_workloads(workload_id TEXT PRIMARY KEY, kernel_type TEXT NOT NULL,
  arithmetic_intensity REAL, compute_ratio REAL NOT NULL, memory_ratio REAL NOT NULL,
  mixed_ratio REAL NOT NULL, description TEXT NOT NULL, source TEXT NOT NULL,
  measured INTEGER NOT NULL, data_source TEXT NOT NULL, profiled_at TEXT NOT NULL,
  profile_id INTEGER, updated_ns INTEGER NOT NULL) WITHOUT ROWID;
)sql";

// One row per upload body (its SHA-256), taken in the transaction that stores the upload:
// on PostgreSQL the unique key makes a second writer of the same body wait for the first
// one's commit and then find its profiles, across API replicas (upload_keys.cc). The
// profiles carry the key as their attribute upload_sha256, which the index finds without
// scanning every profile's attributes.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE upload_keys(upload_sha256 TEXT PRIMARY KEY, created_ns INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX profile_attributes_by_value ON profile_attributes(key, value);
)sql";

constexpr Migration kMigrations[] = {
    {1, "profiles, devices, events, series and packed sample blocks", kSchemaV1},
    {2, "workloads registered through the legacy scheduler API", kSchemaV2},
    {3, "one key per stored upload body", kSchemaV3},
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One migration's DDL and its record in schema_migrations and user_version, inside the
// caller's write transaction.
Status RunMigration(SqliteDb& db, const Migration& migration) {
  if (migration.version == 1) {
    KRAKEN_RETURN_IF_ERROR(db.Exec(
        "CREATE TABLE schema_migrations(version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
        "applied_ns INTEGER NOT NULL)"));
    KRAKEN_RETURN_IF_ERROR(db.Exec("PRAGMA application_id = " + std::to_string(kKrakenApplicationId)));
  }
  KRAKEN_RETURN_IF_ERROR(db.Exec(migration.sql));
  KRAKEN_ASSIGN_OR_RETURN(Statement record, db.Prepare("INSERT INTO schema_migrations VALUES(?, ?, ?)"));
  KRAKEN_RETURN_IF_ERROR(record.Int(migration.version).Text(migration.description).Int(NowNs()).Run());
  return db.Exec("PRAGMA user_version = " + std::to_string(migration.version));
}

// Upgrades an existing store by one version, in its own transaction.
Status ApplyMigration(SqliteDb& db, const Migration& migration) {
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(db));
  // Another process may have migrated between our check and our write lock.
  KRAKEN_ASSIGN_OR_RETURN(int64_t current, db.QueryInt("PRAGMA user_version"));
  if (current >= migration.version) return Status::Ok();
  KRAKEN_RETURN_IF_ERROR(RunMigration(db, migration));
  return txn.Commit();
}

struct StoreHeader {
  int64_t application_id = 0;
  int64_t version = 0;
  int64_t tables = 0;
  bool IsNew() const { return tables == 0 && version == 0; }
};

// The header's three fields, read inside the caller's transaction. The first read of the
// header: a file that is not SQLite fails here.
Result<StoreHeader> ReadHeaderFields(SqliteDb& db) {
  StoreHeader header;
  auto first_read = db.QueryInt("PRAGMA application_id");
  if (!first_read.ok())
    return InvalidInput(db.path() + ": not a kraken database (" + sqlite3_errmsg(db.handle()) + ")");
  header.application_id = *first_read;
  KRAKEN_ASSIGN_OR_RETURN(header.version, db.QueryInt("PRAGMA user_version"));
  KRAKEN_ASSIGN_OR_RETURN(header.tables, db.QueryInt("SELECT COUNT(*) FROM sqlite_schema"));
  return header;
}

// The three header reads share one snapshot: read one by one, a connection opening a new
// file while another one creates its schema saw application_id 0 (before that commit)
// and the tables (after it), and refused the store as "an SQLite file with other tables".
Result<StoreHeader> ReadHeader(SqliteDb& db) {
  KRAKEN_ASSIGN_OR_RETURN(ReadTransaction header_snapshot, ReadTransaction::Begin(db));
  return ReadHeaderFields(db);
}

// SQLite refuses a switch to WAL at once with SQLITE_BUSY, without waiting on the busy
// timeout, while another connection writes the file (another opener of the same new file
// switching it or setting its auto_vacuum): the switch reads the header and then upgrades
// that read to a write, and SQLite never waits on such an upgrade. So it is retried, after
// short pauses, until the connection's busy timeout has passed. Once one connection has
// switched the file, the others' switch only reads that it is WAL.
Status SwitchToWal(SqliteDb& db) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(db.busy_timeout_ms());
  std::chrono::milliseconds pause(1);
  while (true) {
    int rc = sqlite3_exec(db.handle(), "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return Status::Ok();
    if ((rc & 0xff) != SQLITE_BUSY || Clock::now() >= deadline) return db.Error("cannot switch to WAL", rc);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(16));
  }
}

// Makes a new file a store, once however many connections open it at once (`kraken agent`
// beside `kraken profile`, eight uploaders): each one switches it to WAL (only the first
// switch writes), then the one that gets the write lock first creates the whole schema in
// one transaction; the others, queued on the lock, find it made and leave it. No
// connection sees a half-made store.
Status CreateStore(SqliteDb& db) {
  // Both must precede the first table: auto_vacuum lets retention hand pages back to the
  // file system (docs/store.md, retention), WAL lets readers run beside the writer. On a
  // file another connection has made meanwhile, auto_vacuum changes nothing.
  KRAKEN_RETURN_IF_ERROR(db.Exec("PRAGMA auto_vacuum = INCREMENTAL"));
  KRAKEN_RETURN_IF_ERROR(SwitchToWal(db));
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(db));
  KRAKEN_ASSIGN_OR_RETURN(StoreHeader header, ReadHeaderFields(db));
  if (!header.IsNew()) return Status::Ok();  // made by another connection: the caller reads it
  for (const Migration& migration : kMigrations) KRAKEN_RETURN_IF_ERROR(RunMigration(db, migration));
  return txn.Commit();
}

// Before writing into an existing store: a damaged one refuses here with one line instead
// of taking the import and failing (or not) later. quick_check skips the index-content
// cross-check of integrity_check, which keeps it near the cost of reading the file once.
Status CheckIntegrity(SqliteDb& db) {
  KRAKEN_ASSIGN_OR_RETURN(Statement check, db.Prepare("PRAGMA quick_check(1)"));
  auto row = check.Step();
  if (!row.ok()) return InvalidInput(db.path() + ": the store is damaged (" + sqlite3_errmsg(db.handle()) + ")");
  std::string verdict = *row ? check.ColumnText(0) : "no answer";
  if (verdict != "ok") return InvalidInput(db.path() + ": the store is damaged (quick_check: " + verdict + ")");
  return Status::Ok();
}

}  // namespace

std::span<const SchemaMigration> SchemaMigrations() { return kMigrations; }

Status PrepareSchema(SqliteDb& db, bool writable) {
  KRAKEN_ASSIGN_OR_RETURN(StoreHeader header, ReadHeader(db));
  if (writable && header.IsNew()) {
    KRAKEN_RETURN_IF_ERROR(CreateStore(db));
    // Made by this connection or by one racing it: checked below like any existing store.
    KRAKEN_ASSIGN_OR_RETURN(header, ReadHeader(db));
  }
  const int64_t application_id = header.application_id;
  const int64_t version = header.version;
  bool is_new = header.IsNew();
  if (!is_new && application_id != kKrakenApplicationId)
    return InvalidInput(db.path() + ": not a kraken database (an SQLite file with other tables)");
  if (version > kSchemaVersion)
    return InvalidInput(db.path() + ": schema version " + std::to_string(version) +
                        " was written by a newer kraken; this one reads versions up to " +
                        std::to_string(kSchemaVersion));
  if (writable && !is_new) KRAKEN_RETURN_IF_ERROR(CheckIntegrity(db));
  if (version == kSchemaVersion) return Status::Ok();
  if (!writable) {
    if (is_new) return InvalidInput(db.path() + ": not a kraken database (empty)");
    return InvalidInput(db.path() + ": schema version " + std::to_string(version) + " needs upgrading to " +
                        std::to_string(kSchemaVersion) + "; run a writing command (kraken import --db) once");
  }
  for (const Migration& migration : kMigrations)
    if (migration.version > version) KRAKEN_RETURN_IF_ERROR(ApplyMigration(db, migration));
  return Status::Ok();
}

}  // namespace kraken::store
