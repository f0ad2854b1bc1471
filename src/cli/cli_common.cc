#include "cli/cli_common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

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
    std::fwrite(content.data(), 1, content.size(), stdout);
    std::fflush(stdout);
    return Status::Ok();
  }
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return IoError(path + ": cannot write");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out) {
      std::filesystem::remove(temp);
      return IoError(path + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp);
    return IoError(path + ": " + ec.message());
  }
  return Status::Ok();
}

}  // namespace kraken::cli
