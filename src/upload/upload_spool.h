// The local spool of profiles waiting for the central API (docs/upload.md): one file per
// upload in a folder on disk, named by the body's SHA-256 (the key the server dedupes on),
// written atomically, removed only once the server said it has them. Bounded: an upload
// that would take the folder past its byte limit is refused with a message saying so,
// and nothing already spooled is dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace kraken::upload {

inline constexpr int64_t kDefaultSpoolMaxBytes = int64_t{1} << 30;  // 1 GiB

struct SpoolEntry {
  std::string path;  // the spooled file
  std::string key;   // SHA-256 of its content, lower-case hex
  std::string name;  // the file name the server is told (?name=)
  int64_t bytes = 0;
};

class UploadSpool {
 public:
  // Creates `dir` (mode 0700) when missing. max_bytes <= 0: the default.
  static Result<UploadSpool> Open(const std::string& dir, int64_t max_bytes);

  // Spools `body` as `name`. Already spooled (same SHA-256): that entry, nothing written.
  // Full: Unavailable "upload spool <dir> is full: ..." naming the limit and what is used.
  Result<SpoolEntry> Add(const std::string& name, const std::string& body);
  // What waits, oldest first.
  Result<std::vector<SpoolEntry>> List() const;
  Result<std::string> Read(const SpoolEntry& entry) const;
  Status Remove(const SpoolEntry& entry);
  // Moves an entry the server refused for good (4xx) to <dir>/rejected/, out of the queue.
  Status Reject(const SpoolEntry& entry);

  const std::string& dir() const { return dir_; }
  int64_t max_bytes() const { return max_bytes_; }
  Result<int64_t> UsedBytes() const;

 private:
  UploadSpool(std::string dir, int64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {}
  std::string dir_;
  int64_t max_bytes_;
};

}  // namespace kraken::upload
