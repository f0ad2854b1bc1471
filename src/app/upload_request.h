// Profiles travel to the central API (docs/upload.md): the one path `kraken profile`,
// `kraken trial`, the agent's committed windows and the C API / Python sessions take to
// ship a profile. The profile is written in kraken's export JSON (what `kraken serve`'s
// upload imports), spooled on disk under its SHA-256, and the whole spool is sent with
// retries; what the API did not take stays spooled for the next call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "config/config.h"
#include "model/profile.h"
#include "upload/uploader.h"

namespace kraken::app {

struct UploadSettings {
  std::string url;         // "" = no upload
  std::string token_file;  // "" = no token
  std::string spool_dir;   // "" = DefaultUploadSpool()
  int64_t spool_max_bytes = upload::kDefaultSpoolMaxBytes;
  upload::RetryPolicy retry;
  bool enabled() const { return !url.empty(); }
};

// From the effective config (upload.url, upload.token_file, upload.spool, upload.spool_max_bytes).
UploadSettings UploadSettingsFrom(const config::KrakenConfig& config);

// From the C API's / Python's session options: `retry_for` a duration ("" = 30 s); checked
// like CheckUploadSettings.
Result<UploadSettings> UploadSettingsOf(const std::string& url, const std::string& token_file,
                                        const std::string& spool_dir, const std::string& retry_for);

// $XDG_STATE_HOME/kraken/upload-spool, else $HOME/.local/state/kraken/upload-spool, else
// /tmp/kraken-upload-spool-<uid>.
std::string DefaultUploadSpool();

// The URL's form and the token file (readable, not empty), before any work is done, so
// that a bad flag fails at once (exit 2) and not after an hour of profiling.
Status CheckUploadSettings(const UploadSettings& settings);

struct ShipReport {
  bool queued = false;       // this profile entered the spool (or was there already)
  std::string key;           // its SHA-256
  upload::DrainReport sent;  // the drain of the whole spool that followed
  std::string warning;       // "" or one line: spool full, API unreachable, refused
  std::string Summary() const;  // one line for standard error
};

// Spools `profile` as `name` and drains the spool. The spool's errors (full, unwritable)
// are a warning in the report, not a failure: the caller's own output is already written.
ShipReport ShipProfile(const Profile& profile, const std::string& name, const UploadSettings& settings);

// Spools the file at `path` as it is (any format the API's importers read) and drains.
ShipReport ShipFile(const std::string& path, const UploadSettings& settings);

// Drains the spool only (what earlier calls left).
// `stop` (may be empty) ends the retries early.
ShipReport DrainUploads(const UploadSettings& settings, const std::function<bool()>& stop = {});

// Uploads in the background for a long-running process (the agent): Ship() spools on the
// caller's thread (a disk write) and wakes a thread that drains the spool; that thread also
// tries again every `retry_every_ms` while uploads wait, so an API that was down gets them
// once it is back. The destructor stops the thread (a drain in progress ends at its next
// retry wait); what is left stays spooled for the next start.
class UploadWorker {
 public:
  UploadWorker(UploadSettings settings, int64_t retry_every_ms = 60'000);
  ~UploadWorker();
  UploadWorker(const UploadWorker&) = delete;
  UploadWorker& operator=(const UploadWorker&) = delete;

  void Ship(const Profile& profile, const std::string& name);
  int64_t drains() const;  // finished drains, for tests and the log

 private:
  void Run();
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kraken::app
