#include "upload/upload_spool.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>

#include "base/atomic_file.h"
#include "base/sha256.h"

namespace kraken::upload {
namespace fs = std::filesystem;
namespace {

constexpr char kSuffix[] = ".upload";
constexpr size_t kKeyHexSize = 64;

// Only characters a file name and a query parameter need; the server sanitizes again.
std::string SafeName(const std::string& name) {
  std::string safe;
  for (char c : fs::path(name).filename().string())
    safe += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  if (safe.empty() || safe[0] == '.') safe.insert(safe.begin(), 'u');
  return safe.substr(0, 120);
}

// "<sha256>--<name>.upload" -> entry; nullopt for other files (temporaries, strays).
std::optional<SpoolEntry> EntryOf(const fs::directory_entry& file) {
  std::string base = file.path().filename().string();
  if (!file.is_regular_file() || base.size() < kKeyHexSize + 2 + sizeof(kSuffix) - 1) return std::nullopt;
  if (base.compare(base.size() - (sizeof(kSuffix) - 1), sizeof(kSuffix) - 1, kSuffix) != 0) return std::nullopt;
  if (base.compare(kKeyHexSize, 2, "--") != 0) return std::nullopt;
  SpoolEntry e;
  e.path = file.path().string();
  e.key = base.substr(0, kKeyHexSize);
  e.name = base.substr(kKeyHexSize + 2, base.size() - kKeyHexSize - 2 - (sizeof(kSuffix) - 1));
  std::error_code ec;
  e.bytes = static_cast<int64_t>(file.file_size(ec));
  return e;
}

}  // namespace

Result<UploadSpool> UploadSpool::Open(const std::string& dir, int64_t max_bytes) {
  if (dir.empty()) return InvalidInput("the upload spool folder is empty");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir + ": cannot create the upload spool folder: " + ec.message());
  if (!fs::is_directory(dir, ec)) return InvalidInput(dir + ": the upload spool is not a folder");
  ::chmod(dir.c_str(), 0700);  // profiles name hosts, pods and kernels: the owner's only
  return UploadSpool(dir, max_bytes > 0 ? max_bytes : kDefaultSpoolMaxBytes);
}

Result<std::vector<SpoolEntry>> UploadSpool::List() const {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, SpoolEntry>> found;
  for (const fs::directory_entry& file : fs::directory_iterator(dir_, ec)) {
    std::optional<SpoolEntry> entry = EntryOf(file);
    if (!entry) continue;
    std::error_code time_ec;
    found.emplace_back(file.last_write_time(time_ec), std::move(*entry));
  }
  if (ec) return IoError(dir_ + ": cannot list the upload spool: " + ec.message());
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.path < b.second.path;
  });
  std::vector<SpoolEntry> entries;
  for (auto& [time, entry] : found) entries.push_back(std::move(entry));
  return entries;
}

Result<int64_t> UploadSpool::UsedBytes() const {
  KRAKEN_ASSIGN_OR_RETURN(std::vector<SpoolEntry> entries, List());
  int64_t used = 0;
  for (const SpoolEntry& e : entries) used += e.bytes;
  return used;
}

Result<SpoolEntry> UploadSpool::Add(const std::string& name, const std::string& body) {
  SpoolEntry entry;
  entry.key = Sha256Hex(body);
  entry.name = SafeName(name);
  entry.bytes = static_cast<int64_t>(body.size());
  KRAKEN_ASSIGN_OR_RETURN(std::vector<SpoolEntry> waiting, List());
  int64_t used = 0;
  for (const SpoolEntry& e : waiting) {
    if (e.key == entry.key) return e;  // the same content waits already
    used += e.bytes;
  }
  if (used + entry.bytes > max_bytes_)
    return Unavailable("upload spool " + dir_ + " is full: " + std::to_string(used) + " bytes of its " +
                       std::to_string(max_bytes_) + " wait for the API; " + entry.name + " (" +
                       std::to_string(entry.bytes) + " bytes) was not queued (start the API or raise "
                       "upload.spool_max_bytes)");
  entry.path = dir_ + "/" + entry.key + "--" + entry.name + kSuffix;
  KRAKEN_RETURN_IF_ERROR(WriteFileAtomically(entry.path, body));
  return entry;
}

Result<std::string> UploadSpool::Read(const SpoolEntry& entry) const {
  std::ifstream in(entry.path, std::ios::binary);
  if (!in) return NotFound(entry.path + ": the spooled upload is gone");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Status UploadSpool::Remove(const SpoolEntry& entry) {
  std::error_code ec;
  fs::remove(entry.path, ec);
  if (ec) return IoError(entry.path + ": cannot remove the sent upload: " + ec.message());
  return Status::Ok();
}

Status UploadSpool::Reject(const SpoolEntry& entry) {
  std::error_code ec;
  fs::create_directories(dir_ + "/rejected", ec);
  fs::rename(entry.path, dir_ + "/rejected/" + fs::path(entry.path).filename().string(), ec);
  if (ec) return IoError(entry.path + ": cannot move the refused upload aside: " + ec.message());
  return Status::Ok();
}

}  // namespace kraken::upload
