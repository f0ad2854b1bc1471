// An output written in pieces (exports of day-long captures) with WriteOutput's promise:
// a regular file appears complete (AtomicOutput: temp file + rename at Finish) or not at
// all; a device or fifo is written in place. "-" or "" is standard output.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "base/atomic_file.h"
#include "base/status.h"

namespace kraken::cli {

class OutputFile {
 public:
  static Result<std::unique_ptr<OutputFile>> Open(const std::string& path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  Status Write(std::string_view chunk);
  Status Finish();

 private:
  explicit OutputFile(std::unique_ptr<AtomicOutput> file) : file_(std::move(file)) {}
  std::unique_ptr<AtomicOutput> file_;  // null for standard output
};

}  // namespace kraken::cli
