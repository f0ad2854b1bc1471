#include "cli/cli_common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "base/atomic_file.h"

namespace kraken::cli {

int ReportError(const Status& status) {
  std::string message = status.message();
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "kraken: error: %s\n", message.c_str());
  switch (status.code()) {
    case StatusCode::kOk: return kExitOk;
    case StatusCode::kInvalidInput:
    case StatusCode::kNotFound:
    case StatusCode::kIoError:
    case StatusCode::kUnsupported: return kExitBadInput;
    case StatusCode::kInternal:
    case StatusCode::kUnavailable: return kExitFailure;
  }
  return kExitFailure;
}

InputOptions CliInputOptions(const std::string& format, const std::string& db) {
  InputOptions options;
  options.format = format;
  options.db = db;
  options.progress = MakeProgress;
  options.after_import = [] {
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
  };
  return options;
}

ProgressFn MakeProgress(const std::string& path) {
  if (!::isatty(STDERR_FILENO)) return {};
  struct stat st {};
  uint64_t total = ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  return [path, total, last](uint64_t done) {
    auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(250)) return;
    *last = now;
    if (total > 0) {
      std::fprintf(stderr, "\rreading %s: %3.0f%%", path.c_str(), 100.0 * static_cast<double>(done) / total);
    } else {
      std::fprintf(stderr, "\rreading %s: %.0f MB", path.c_str(), static_cast<double>(done) / 1e6);
    }
    std::fflush(stderr);
  };
}

Status WriteOutput(const std::string& path, const std::string& content) {
  if (path == "-" || path.empty()) {
    bool written = std::fwrite(content.data(), 1, content.size(), stdout) == content.size();
    if (!written || std::fflush(stdout) != 0)
      return IoError(std::string("standard output: write failed: ") + std::strerror(errno));
    return Status::Ok();
  }
  return WriteFileAtomically(path, content);
}

int WriteCommandOutput(const std::string& path, const Result<std::string>& text) {
  if (!text.ok()) return ReportError(text.status());
  if (Status status = WriteOutput(path, *text); !status.ok()) return ReportError(status);
  if (path != "-" && !path.empty()) std::fprintf(stderr, "kraken: wrote %s\n", path.c_str());
  return kExitOk;
}

}  // namespace kraken::cli
