#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace kraken {
namespace {

// The temp files alive now, readable from a signal handler: fixed storage, no allocation.
constexpr int kMaxLiveTemps = 64;
constexpr size_t kMaxTempPath = 4096;
struct LiveTemp {
  std::atomic<bool> live{false};
  std::atomic<bool> taken{false};
  char path[kMaxTempPath];
};
std::array<LiveTemp, kMaxLiveTemps> live_temps;

int RegisterTemp(const std::string& path) {
  if (path.size() >= kMaxTempPath) return -1;
  for (int i = 0; i < kMaxLiveTemps; ++i) {
    bool expected = false;
    if (!live_temps[i].taken.compare_exchange_strong(expected, true)) continue;
    std::memcpy(live_temps[i].path, path.c_str(), path.size() + 1);
    live_temps[i].live.store(true);
    return i;
  }
  return -1;  // more than 64 outputs at once: this one is still removed at destruction
}

void UnregisterTemp(int slot) {
  if (slot < 0) return;
  live_temps[slot].live.store(false);
  live_temps[slot].taken.store(false);
}

void RemoveLiveTempsAndDie(int signal_number) {
  for (LiveTemp& temp : live_temps)
    if (temp.live.load()) ::unlink(temp.path);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// The process's umask without changing it (umask(2) can only read by writing, which races
// with other threads creating files).
mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

std::string DirectoryOf(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

Result<std::unique_ptr<AtomicOutput>> AtomicOutput::Open(const std::string& path) {
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    if (S_ISDIR(target.st_mode)) return IoError(path + ": cannot write: is a directory");
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return IoError(path + ": cannot write: " + ErrnoText());
    return std::unique_ptr<AtomicOutput>(new AtomicOutput(path, "", ::fdopen(fd, "wb"), -1));
  }
  std::string name = std::filesystem::path(path).filename().string();
  std::string temp = DirectoryOf(path) + "/." + name + ".tmp.XXXXXX";
  int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return IoError(path + ": cannot write: " + ErrnoText());
  int slot = RegisterTemp(temp);
  ::fchmod(fd, 0666 & ~CurrentUmask());  // mkstemp's 0600 would hide a report from others
  return std::unique_ptr<AtomicOutput>(new AtomicOutput(path, temp, ::fdopen(fd, "wb"), slot));
}

AtomicOutput::~AtomicOutput() { Discard(); }

void AtomicOutput::Discard() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  UnregisterTemp(slot_);
  slot_ = -1;
}

Status AtomicOutput::Write(std::string_view chunk) {
  if (file_ == nullptr) return IoError(path_ + ": write failed: already closed");
  if (std::fwrite(chunk.data(), 1, chunk.size(), file_) != chunk.size())
    return IoError(path_ + ": write failed: " + ErrnoText());
  return Status::Ok();
}

Status AtomicOutput::Commit() {
  if (file_ == nullptr) return IoError(path_ + ": write failed: already closed");
  bool flushed = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  std::string error = flushed ? "" : ErrnoText();
  int closed = std::fclose(file_);
  file_ = nullptr;
  if (!flushed || closed != 0) {
    Discard();
    return IoError(path_ + ": write failed: " + (flushed ? ErrnoText() : error));
  }
  if (temp_.empty()) return Status::Ok();
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    std::string why = ErrnoText();
    Discard();
    return IoError(path_ + ": " + why);
  }
  temp_.clear();
  Discard();
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, const std::string& content) {
  auto output = AtomicOutput::Open(path);
  if (!output.ok()) return output.status();
  Status written = (*output)->Write(content);
  if (!written.ok()) return written;
  return (*output)->Commit();
}

void InstallTempFileCleanupOnSignals() {
  for (int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction action {};
    action.sa_handler = RemoveLiveTempsAndDie;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace kraken
