#include "cli/output_file.h"

#include <cerrno>
#include <cstring>

namespace kraken::cli {

Result<std::unique_ptr<OutputFile>> OutputFile::Open(const std::string& path) {
  if (path.empty() || path == "-") return std::unique_ptr<OutputFile>(new OutputFile(nullptr));
  auto file = AtomicOutput::Open(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<OutputFile>(new OutputFile(std::move(*file)));
}

Status OutputFile::Write(std::string_view chunk) {
  if (file_ != nullptr) return file_->Write(chunk);
  if (std::fwrite(chunk.data(), 1, chunk.size(), stdout) != chunk.size())
    return IoError(std::string("standard output: write failed: ") + std::strerror(errno));
  return Status::Ok();
}

Status OutputFile::Finish() {
  if (file_ != nullptr) return file_->Commit();
  if (std::fflush(stdout) != 0) return IoError(std::string("standard output: write failed: ") + std::strerror(errno));
  return Status::Ok();
}

}  // namespace kraken::cli
