#include "app/profiler_step_copy.h"

#include <algorithm>
#include <memory>
#include <string_view>

#include "base/atomic_file.h"
#include "base/byte_stream.h"

namespace kraken {
namespace {

// Bytes read (and written) at a time: the copy's memory, whatever the trace's size.
constexpr size_t kCopyChunkBytes = 1 << 20;

bool IsGapSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Copies the input chunk by chunk to `out`, leaving the cuts out. A cut may span chunks.
class CutCopier {
 public:
  CutCopier(const std::string& path, const std::vector<StepCut>& cuts, AtomicOutput& out)
      : path_(path), cuts_(cuts), out_(out) {}

  // The next bytes of the input.
  Status Copy(std::string_view chunk) {
    size_t i = 0;
    while (i < chunk.size()) {
      const uint64_t at = offset_ + i;
      const size_t left = chunk.size() - i;
      if (next_ == cuts_.size() || at < cuts_[next_].begin) {
        const uint64_t until = next_ == cuts_.size() ? at + left : cuts_[next_].begin;
        const size_t take = static_cast<size_t>(std::min<uint64_t>(left, until - at));
        KRAKEN_RETURN_IF_ERROR(out_.Write(chunk.substr(i, take)));
        i += take;
        continue;
      }
      const StepCut& cut = cuts_[next_];
      const size_t take = static_cast<size_t>(std::min<uint64_t>(left, cut.end - at));
      const std::string_view part = chunk.substr(i, take);
      KRAKEN_RETURN_IF_ERROR(cut.comma_only ? CopyGap(part) : CheckEvent(part, at, cut));
      i += take;
      if (at + take == cut.end) KRAKEN_RETURN_IF_ERROR(EndCut());
    }
    offset_ += chunk.size();
    return Status::Ok();
  }

  // After the last chunk: every cut was met.
  Status Finish() const { return next_ == cuts_.size() ? Status::Ok() : NotAsFound(); }

 private:
  // The bytes differ from those the cuts were found in: the file changed in between, or
  // it has several "traceEvents" arrays (the finder sees one stream of events).
  Status NotAsFound() const {
    return InvalidInput(path_ + ": the trace is not as it was when its events were read (changed meanwhile, or "
                        "several \"traceEvents\" arrays); left as it was");
  }

  // Part of the gap between two events: its white space is kept, its one comma is not.
  Status CopyGap(std::string_view part) {
    size_t start = 0;
    for (size_t k = 0; k < part.size(); ++k) {
      if (IsGapSpace(part[k])) continue;
      if (part[k] != ',' || comma_seen_) return NotAsFound();
      comma_seen_ = true;
      KRAKEN_RETURN_IF_ERROR(out_.Write(part.substr(start, k - start)));
      start = k + 1;
    }
    return out_.Write(part.substr(start));
  }

  // Part of an event left out: it still begins with '{' and ends with '}'.
  Status CheckEvent(std::string_view part, uint64_t at, const StepCut& cut) const {
    if (at == cut.begin && part.front() != '{') return NotAsFound();
    if (at + part.size() == cut.end && part.back() != '}') return NotAsFound();
    return Status::Ok();
  }

  Status EndCut() {
    const bool comma_missing = cuts_[next_].comma_only && !comma_seen_;
    comma_seen_ = false;
    ++next_;
    return comma_missing ? NotAsFound() : Status::Ok();
  }

  const std::string& path_;
  const std::vector<StepCut>& cuts_;
  AtomicOutput& out_;
  uint64_t offset_ = 0;  // input offset of the chunk being copied
  size_t next_ = 0;      // the first cut not yet passed
  bool comma_seen_ = false;
};

}  // namespace

Status CopyWithoutCuts(const std::string& path, const std::vector<StepCut>& cuts) {
  auto input = OpenFileStream(path);
  if (!input.ok()) return input.status().WithContext(path);
  // Errors of the output name the file already.
  KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<AtomicOutput> output, AtomicOutput::Open(path));
  CutCopier copier(path, cuts, *output);
  std::vector<char> buffer(kCopyChunkBytes);
  while (true) {
    auto read = (*input)->Read(buffer.data(), buffer.size());
    if (!read.ok()) return read.status().WithContext(path);
    if (*read == 0) break;
    KRAKEN_RETURN_IF_ERROR(copier.Copy(std::string_view(buffer.data(), *read)));
  }
  KRAKEN_RETURN_IF_ERROR(copier.Finish());
  return output->Commit();  // the temporary file renamed over `path`
}

}  // namespace kraken
