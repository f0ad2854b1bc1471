// Idempotent uploads (docs/upload.md): every profile of an upload carries the body's
// SHA-256 as the attribute "upload_sha256", written in the same transaction as the
// profile, so a retried or repeated upload finds what the first one stored instead of
// storing it twice, and a crash between "saved" and "answered" cannot leave a profile
// without its key.
#include "store/profile_tables.h"
#include "store/sqlite_db.h"
#include "store/store.h"

namespace kraken {

using store::RowReader;
using store::Statement;
using store::WriteTransaction;

namespace {

constexpr char kUploadKeyAttribute[] = "upload_sha256";

Result<std::vector<int64_t>> SelectUploadIds(store::SqliteDb& db, const std::string& key) {
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
  // IMMEDIATE: two uploads of the same body (two clients, two server processes) take the
  // write lock in turn, and the second sees the first's rows.
  KRAKEN_ASSIGN_OR_RETURN(WriteTransaction txn, WriteTransaction::Begin(*db_));
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
