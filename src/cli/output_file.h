// An output written in pieces (exports of day-long captures) with WriteOutput's promise:
// the file appears complete (temp file + rename at Finish) or not at all. "-" or "" is
// standard output.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kraken::cli {

class OutputFile {
 public:
  static Result<std::unique_ptr<OutputFile>> Open(const std::string& path);
  ~OutputFile();  // an unfinished file is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  Status Write(std::string_view chunk);
  Status Finish();

 private:
  OutputFile(std::string path, std::string temp, FILE* file)
      : path_(std::move(path)), temp_(std::move(temp)), file_(file) {}
  std::string path_;
  std::string temp_;  // empty for standard output
  FILE* file_;
  bool finished_ = false;
};

}  // namespace kraken::cli
