// Idempotent uploads (docs/upload.md): every profile of an upload carries the body's
// SHA-256 as the attribute "upload_sha256", written in the same transaction as the
// profile, so a retried or repeated upload finds what the first one stored instead of
// storing it twice, and a crash between "saved" and "answered" cannot leave a profile
// without its key.
#include "store/profile_tables.h"
#include "store/database.h"
#include "store/store.h"

namespace kraken {

using store::RowReader;
using store::Statement;
using store::WriteTransaction;

namespace {

constexpr char kUploadKeyAttribute[] = "upload_sha256";

Result<std::vector<int64_t>> SelectUploadIds(store::Db& db, const std::string& key) {
  KRAKEN_ASSIGN_OR_RETURN(Statement select,
                          db.Prepare("SELECT a.profile_id FROM profile_attributes a JOIN profiles p ON p.id = "
                                     "a.profile_id WHERE a.key = ? AND a.value = ? AND p.complete = 1 ORDER BY "
                                     "a.profile_id"));
  select.Text(kUploadKeyAttribute).Text(key);
  std::vector<int64_t> ids;
  while (true) {
    KRAKEN_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) break;
    ids.push_back(RowReader(select).Int());
  }
  return ids;
}

}  // namespace

Result<std::vector<int64_t>> ProfileStore::FindUpload(const std::string& upload_key) {
  KRAKEN_ASSIGN_OR_RETURN(store::ReadTransaction txn, store::ReadTransaction::Begin(*db_));
  return SelectUploadIds(*db_, upload_key);
}

Result<UploadSave> ProfileStore::SaveUpload(std::vector<Profile>& profiles, const std::string& upload_key) {
  if (read_only_) return IoError(path() + ": opened read-only");
  // Two uploads of the same body (two clients, two server processes or replicas) take
  // turns here. SQLite: BEGIN IMMEDIATE holds the file's write lock. PostgreSQL: the upsert
  // locks the key's row, so a second writer waits for the first one's commit and then, in
  // read committed, sees its profiles; DO UPDATE (not NOTHING) also locks a key whose
  // profiles retention deleted, which is stored anew.
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
  KRAKEN_ASSIGN_OR_RETURN(Statement take_key,
                          db_->Prepare("INSERT INTO upload_keys VALUES(?, ?) ON CONFLICT(upload_sha256) "
                                       "DO UPDATE SET created_ns = excluded.created_ns"));
  KRAKEN_RETURN_IF_ERROR(take_key.Text(upload_key).Int(store::NowNs()).Run());
  UploadSave saved;
  KRAKEN_ASSIGN_OR_RETURN(saved.ids, SelectUploadIds(*db_, upload_key));
  if (!saved.ids.empty()) {
    saved.duplicate = true;
    return saved;  // the transaction rolls back: nothing was written
  }
  for (Profile& profile : profiles) {
    profile.metadata.attributes[kUploadKeyAttribute] = upload_key;
    KRAKEN_ASSIGN_OR_RETURN(int64_t id,
                            store::InsertProfileRow(*db_, profile.metadata, "import", std::nullopt, store::NowNs()));
    KRAKEN_RETURN_IF_ERROR(store::WriteDevices(*db_, id, profile.devices));
    KRAKEN_RETURN_IF_ERROR(store::WriteEvents(*db_, id, profile));
    KRAKEN_RETURN_IF_ERROR(store::WriteSeries(*db_, id, profile.series));
    KRAKEN_RETURN_IF_ERROR(store::MarkComplete(*db_, id, store::ComputeTotals(profile)));
    saved.ids.push_back(id);
  }
  KRAKEN_RETURN_IF_ERROR(txn.Commit());
  return saved;
}

}  // namespace kraken
