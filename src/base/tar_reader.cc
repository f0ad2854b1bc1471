#include "base/tar_reader.h"

#include <cstring>
#include <vector>

namespace kraken {
namespace {

constexpr size_t kBlock = 512;

uint64_t ParseOctal(const char* field, size_t len) {
  uint64_t value = 0;
  // GNU base-256 encoding for sizes >= 8 GiB: high bit of the first byte set.
  if (len > 0 && (static_cast<unsigned char>(field[0]) & 0x80)) {
    for (size_t i = 1; i < len; ++i) value = (value << 8) | static_cast<unsigned char>(field[i]);
    return value;
  }
  for (size_t i = 0; i < len; ++i) {
    char c = field[i];
    if (c == ' ' || c == '\0') {
      if (value != 0) break;
      continue;
    }
    if (c < '0' || c > '7') break;
    value = value * 8 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

std::string FieldString(const char* field, size_t len) { return std::string(field, strnlen(field, len)); }

}  // namespace

bool LooksLikeTar(std::string_view head) {
  return head.size() >= kBlock && head.compare(257, 5, "ustar") == 0;
}

class TarReader::MemberStream final : public ByteStream {
 public:
  explicit MemberStream(TarReader* reader) : reader_(reader) {}
  Result<size_t> Read(char* out, size_t size) override {
    uint64_t left = reader_->remaining_in_member_;
    if (left == 0) return size_t{0};
    size_t want = static_cast<size_t>(std::min<uint64_t>(size, left));
    auto n = reader_->archive_->Read(out, want);
    if (!n.ok()) return n.status();
    if (*n == 0) return InvalidInput("tar archive ends inside a member");
    reader_->remaining_in_member_ -= *n;
    return *n;
  }
  uint64_t source_offset() const override { return reader_->archive_->source_offset(); }

 private:
  TarReader* reader_;
};

TarReader::TarReader(std::unique_ptr<ByteStream> archive) : archive_(std::move(archive)) {}
TarReader::~TarReader() = default;

Status TarReader::Skip(uint64_t bytes) {
  std::vector<char> sink(64 * 1024);
  while (bytes > 0) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(bytes, sink.size()));
    auto n = archive_->Read(sink.data(), want);
    if (!n.ok()) return n.status();
    if (*n == 0) return InvalidInput("tar archive is truncated");
    bytes -= *n;
  }
  return Status::Ok();
}

Result<bool> TarReader::ReadBlock(char* block) {
  size_t filled = 0;
  while (filled < kBlock) {
    auto n = archive_->Read(block + filled, kBlock - filled);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    filled += *n;
  }
  if (filled == 0) return false;
  if (filled < kBlock) return InvalidInput("tar archive is truncated inside a header");
  return true;
}

Result<bool> TarReader::Next(Member* member) {
  KRAKEN_RETURN_IF_ERROR(Skip(remaining_in_member_ + padding_after_member_));
  remaining_in_member_ = 0;
  padding_after_member_ = 0;
  std::string long_name;
  char block[kBlock];
  while (true) {
    auto got = ReadBlock(block);
    if (!got.ok()) return got.status();
    if (!*got) return false;
    bool all_zero = true;
    for (char c : block) all_zero = all_zero && c == 0;
    if (all_zero) return false;  // end-of-archive marker
    if (std::memcmp(block + 257, "ustar", 5) != 0) return InvalidInput("tar header is corrupt");
    uint64_t size = ParseOctal(block + 124, 12);
    uint64_t padding = (kBlock - size % kBlock) % kBlock;
    char type = block[156];
    if (type == 'L') {  // GNU long name: the data is the name of the next member
      std::string name(static_cast<size_t>(size), '\0');
      size_t filled = 0;
      while (filled < name.size()) {
        auto n = archive_->Read(name.data() + filled, name.size() - filled);
        if (!n.ok()) return n.status();
        if (*n == 0) return InvalidInput("tar archive is truncated");
        filled += *n;
      }
      long_name = FieldString(name.data(), name.size());
      KRAKEN_RETURN_IF_ERROR(Skip(padding));
      continue;
    }
    if (type != '0' && type != '\0') {  // directories, links, pax headers: skip their data
      KRAKEN_RETURN_IF_ERROR(Skip(size + padding));
      continue;
    }
    std::string name = long_name;
    if (name.empty()) {
      std::string prefix = FieldString(block + 345, 155);
      name = FieldString(block, 100);
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    member->name = name;
    member->size_bytes = size;
    remaining_in_member_ = size;
    padding_after_member_ = padding;
    return true;
  }
}

std::unique_ptr<ByteStream> TarReader::OpenMember() { return std::make_unique<MemberStream>(this); }

}  // namespace kraken
