#include "app/parallel_inputs.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "base/byte_stream.h"
#include "base/tar_reader.h"
#include "importers/registry.h"

namespace kraken {
namespace {

// What one work item produced: its profiles and the argument they came from.
struct Slot {
  Status status = Status::Ok();
  std::vector<Profile> profiles;
  std::string origin;
};

struct WorkItem {
  Slot* slot = nullptr;
  std::string path;                   // a file to import, or
  std::optional<std::string> buffer;  // an archive member's bytes
  std::string name;                   // how messages call it
};

// A queue of bounded length between the reader (the calling thread) and the importers.
class WorkQueue {
 public:
  explicit WorkQueue(size_t capacity) : capacity_(capacity) {}
  // False when the queue is full: the caller then does the work itself instead of
  // waiting, so the reading thread is an importer too and no core idles.
  bool TryPush(WorkItem& item) {
    std::lock_guard lock(mu_);
    if (items_.size() >= capacity_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }
  std::optional<WorkItem> Pop() {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    WorkItem item = std::move(items_.front());
    items_.pop_front();
    return item;
  }
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_empty_;
  std::deque<WorkItem> items_;
  size_t capacity_;
  bool closed_ = false;
};

void RunItem(WorkItem& item, const ImportOptions& options) {
  auto result = item.buffer ? ImportBuffer(BuiltinImporters(), item.name, std::move(*item.buffer), options)
                            : ImportFile(BuiltinImporters(), item.path, options);
  if (!result.ok()) {
    item.slot->status = result.status();
    return;
  }
  item.slot->profiles = std::move(*result);
}

// Does any importer (or tar) recognise the start of `path`, gzip undone? Directory
// entries that do not (READMEs, logs) are skipped like unknown archive members.
bool LooksImportable(const std::string& path) {
  auto file = OpenFileStream(path);
  if (!file.ok()) return true;  // let the importer report it, naming the file
  auto head = ReadUpTo(**file, 2);
  if (!head.ok()) return true;
  std::unique_ptr<ByteStream> stream = MakePrefixedStream(*head, std::move(*file));
  if (LooksGzipped(*head)) stream = MakeGzipStream(std::move(stream));
  auto start = ReadUpTo(*stream, kSniffBytes);
  if (!start.ok()) return true;
  return LooksLikeTar(*start) || BuiltinImporters().Sniff(*start) != nullptr;
}

// Is `path` a tar archive (plain or gzipped)? Reads the first 512 bytes after gzip.
bool IsTarFile(const std::string& path) {
  auto file = OpenFileStream(path);
  if (!file.ok()) return false;
  auto head = ReadUpTo(**file, 2);
  if (!head.ok()) return false;
  std::unique_ptr<ByteStream> stream = MakePrefixedStream(*head, std::move(*file));
  if (LooksGzipped(*head)) stream = MakeGzipStream(std::move(stream));
  auto tar_head = ReadUpTo(*stream, 512);
  return tar_head.ok() && LooksLikeTar(*tar_head);
}

class ParallelLoader {
 public:
  ParallelLoader(const InputOptions& options, size_t threads) : options_(options), threads_(threads), queue_(threads) {
    import_options_.forced_format = options.format;
  }

  Status Load(const std::vector<std::string>& arguments, LoadedProfiles* loaded) {
    std::vector<std::thread> workers;
    for (size_t t = 1; t < threads_; ++t) workers.emplace_back([this] { Drain(); });
    Status produced = Status::Ok();
    for (const std::string& argument : arguments) {
      produced = Produce(argument);
      if (!produced.ok()) break;
    }
    queue_.Close();
    // The reading thread imports what is still queued too, so that the last items are not
    // left to the other threads alone while it waits.
    Drain();
    for (std::thread& w : workers) w.join();
    KRAKEN_RETURN_IF_ERROR(produced);
    for (auto& slot : slots_) KRAKEN_RETURN_IF_ERROR(slot->status);
    for (const Skipped& k : skipped_)
      for (size_t s = k.first_slot; s < k.end_slot; ++s)
        for (Profile& p : slots_[s]->profiles) p.import_counters[k.counter] = k.count;
    for (auto& slot : slots_) {
      for (Profile& p : slot->profiles) {
        loaded->profiles.push_back(std::move(p));
        loaded->origins.push_back(slot->origin);
      }
    }
    return Status::Ok();
  }

 private:
  void Drain() {
    while (auto item = queue_.Pop()) RunItem(*item, import_options_);
  }

  Slot* NewSlot(const std::string& origin) {
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->origin = origin;
    return slots_.back().get();
  }

  void Submit(WorkItem item) {
    if (threads_ > 1 && queue_.TryPush(item)) return;
    RunItem(item, import_options_);
  }

  Status Produce(const std::string& argument) {
    std::error_code ec;
    if (IsStoredProfileArgument(argument)) {
      Slot* slot = NewSlot(argument);
      LoadedProfiles one;
      slot->status = LoadProfileInputs({argument}, options_, &one);
      slot->profiles = std::move(one.profiles);
      if (!one.origins.empty()) slot->origin = one.origins.front();
      return Status::Ok();
    }
    if (std::filesystem::is_directory(argument, ec)) return ProduceDirectory(argument);
    if (threads_ > 1 && IsTarFile(argument)) return ProduceArchive(argument);
    Submit(WorkItem{NewSlot(argument), argument, std::nullopt, argument});
    return Status::Ok();
  }

  Status ProduceDirectory(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.is_regular_file(ec)) files.push_back(entry.path().string());
    if (ec) return InvalidInput(dir + ": cannot list the directory: " + ec.message());
    std::sort(files.begin(), files.end());
    const size_t first_slot = slots_.size();
    int64_t skipped = 0;
    for (const std::string& f : files) {
      if (options_.format.empty() && !LooksImportable(f)) {
        ++skipped;
        continue;
      }
      KRAKEN_RETURN_IF_ERROR(Produce(f));
    }
    if (slots_.size() == first_slot)
      return InvalidInput(dir + ": the directory holds no file in a format kraken reads (" + std::to_string(skipped) +
                          " files skipped)");
    if (skipped > 0) skipped_.push_back({first_slot, slots_.size(), "directory_files_skipped", skipped});
    return Status::Ok();
  }

  // Reads members one by one and hands each to an importer; members in no known format
  // are skipped (as the serial importer does).
  Status ProduceArchive(const std::string& path) {
    KRAKEN_ASSIGN_OR_RETURN(auto file, OpenFileStream(path));
    auto head = ReadUpTo(*file, 2);
    if (!head.ok()) return head.status().WithContext(path);
    std::unique_ptr<ByteStream> stream = MakePrefixedStream(*head, std::move(file));
    if (LooksGzipped(*head)) stream = MakeGzipStream(std::move(stream));
    TarReader tar(std::move(stream));
    TarReader::Member member;
    const size_t first_slot = slots_.size();
    int64_t skipped = 0;
    while (true) {
      auto more = tar.Next(&member);
      if (!more.ok()) return more.status().WithContext(path);
      if (!*more) break;
      if (member.size_bytes == 0) continue;
      const std::string name = path + ":" + member.name;
      auto bytes = ReadAll(*tar.OpenMember());
      if (!bytes.ok()) return bytes.status().WithContext(name);
      const bool gz = LooksGzipped(*bytes);
      if (options_.format.empty() && !gz &&
          BuiltinImporters().Sniff(std::string_view(*bytes).substr(0, kSniffBytes)) == nullptr) {
        ++skipped;
        continue;
      }
      Submit(WorkItem{NewSlot(path), "", std::move(*bytes), name});
    }
    if (slots_.size() == first_slot)
      return InvalidInput(path + ": tar archive holds no file in a format kraken reads (" + std::to_string(skipped) +
                          " members skipped)");
    if (skipped > 0) skipped_.push_back({first_slot, slots_.size(), "archive_members_skipped", skipped});
    return Status::Ok();
  }

  const InputOptions& options_;
  ImportOptions import_options_;
  size_t threads_;
  WorkQueue queue_;
  std::vector<std::unique_ptr<Slot>> slots_;
  // Inputs skipped inside an archive or directory, counted on the profiles read from it.
  struct Skipped {
    size_t first_slot, end_slot;
    const char* counter;
    int64_t count;
  };
  std::vector<Skipped> skipped_;
};

}  // namespace

Status LoadProfileInputsParallel(const std::vector<std::string>& arguments, const InputOptions& options,
                                 size_t threads, LoadedProfiles* loaded) {
  ParallelLoader loader(options, std::max<size_t>(1, threads));
  return loader.Load(arguments, loaded);
}

}  // namespace kraken
