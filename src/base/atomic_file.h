// Writing a whole file so that it appears complete or not at all (temp file + rename): an
// interrupted run never leaves a half-written output.
//
// Only a regular file (or a path that does not exist yet) is replaced that way. Anything
// else (a device such as /dev/null, a fifo, a terminal) is written in place: renaming over
// it would turn a device node into a regular file. The temp file is created with O_EXCL
// under an unpredictable name in the target's directory (mkstemp), so a name planted in
// advance (a symlink) is never followed. Live temp files are removed when the object dies
// unfinished, and on SIGINT/SIGTERM once InstallTempFileCleanupOnSignals() has run.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken {

class AtomicOutput {
 public:
  static Result<std::unique_ptr<AtomicOutput>> Open(const std::string& path);
  ~AtomicOutput();  // an uncommitted temp file is removed
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  Status Write(std::string_view chunk);
  // Flushes and closes; a temp file is then renamed over the target.
  Status Commit();

 private:
  AtomicOutput(std::string path, std::string temp, FILE* file, int slot)
      : path_(std::move(path)), temp_(std::move(temp)), file_(file), slot_(slot) {}
  void Discard();
  std::string path_;
  std::string temp_;  // empty when the target is written in place
  FILE* file_;
  int slot_;  // this temp file's place in the signal-time cleanup list; -1 when none
};

Status WriteFileAtomically(const std::string& path, const std::string& content);

// SIGINT and SIGTERM remove every live temp file, then end the process as the signal would.
// Call once at start-up (the CLI's main); a handler installed later (a server's) wins.
void InstallTempFileCleanupOnSignals();

}  // namespace kraken
