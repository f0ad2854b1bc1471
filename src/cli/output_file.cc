#include "cli/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kraken::cli {

Result<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  if (path.empty() || path == "-") return std::unique_ptr<OutputFile>(new OutputFile(path, "", stdout));
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) return IoError(path + ": cannot write: " + std::strerror(errno));
  return std::unique_ptr<OutputFile>(new OutputFile(path, temp, file));
}

OutputFile::~OutputFile() {
  if (temp_.empty()) return;
  if (file_ != nullptr) std::fclose(file_);
  if (!finished_) std::filesystem::remove(temp_);
}

Status OutputFile::Write(std::string_view chunk) {
  if (std::fwrite(chunk.data(), 1, chunk.size(), file_) != chunk.size())
    return IoError((temp_.empty() ? std::string("standard output") : path_) + ": write failed");
  return Status::Ok();
}

Status OutputFile::Finish() {
  if (temp_.empty()) {
    std::fflush(stdout);
    return Status::Ok();
  }
  int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) return IoError(path_ + ": write failed");
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) return IoError(path_ + ": " + ec.message());
  finished_ = true;
  return Status::Ok();
}

}  // namespace kraken::cli
