#include "base/byte_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace kraken {
namespace {

class FileStream final : public ByteStream {
 public:
  FileStream(int fd, bool owned) : fd_(fd), owned_(owned) {}
  ~FileStream() override {
    if (owned_) ::close(fd_);
  }

  Result<size_t> Read(char* out, size_t size) override {
    while (true) {
      ssize_t n = ::read(fd_, out, size);
      if (n >= 0) {
        offset_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno == EINTR) continue;
      return IoError(std::string("read failed: ") + std::strerror(errno));
    }
  }
  uint64_t source_offset() const override { return offset_; }
  std::optional<uint64_t> size_left() const override {
    struct stat st;
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    uint64_t size = static_cast<uint64_t>(st.st_size);
    return size > offset_ ? size - offset_ : 0;
  }

 private:
  int fd_;
  bool owned_;
  uint64_t offset_ = 0;
};

class MemoryStream final : public ByteStream {
 public:
  explicit MemoryStream(std::string data) : data_(std::move(data)) {}
  Result<size_t> Read(char* out, size_t size) override {
    size_t n = std::min(size, data_.size() - pos_);
    std::memcpy(out, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t source_offset() const override { return pos_; }
  std::optional<uint64_t> size_left() const override { return data_.size() - pos_; }

 private:
  std::string data_;
  size_t pos_ = 0;
};

class PrefixedStream final : public ByteStream {
 public:
  PrefixedStream(std::string prefix, std::unique_ptr<ByteStream> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  Result<size_t> Read(char* out, size_t size) override {
    if (pos_ < prefix_.size()) {
      size_t n = std::min(size, prefix_.size() - pos_);
      std::memcpy(out, prefix_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return rest_->Read(out, size);
  }
  uint64_t source_offset() const override { return rest_->source_offset(); }
  std::optional<uint64_t> size_left() const override {
    std::optional<uint64_t> rest = rest_->size_left();
    if (!rest) return std::nullopt;
    return *rest + (prefix_.size() - pos_);
  }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteStream> rest_;
};

// Streaming inflate with zlib. Concatenated gzip members are decoded one after the
// other, as gzip(1) does; data after the last member that is not gzip is an error.
class GzipStream final : public ByteStream {
 public:
  explicit GzipStream(std::unique_ptr<ByteStream> in) : in_(std::move(in)), buffer_(1 << 18) {
    std::memset(&z_, 0, sizeof(z_));
    init_ok_ = inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipStream() override { inflateEnd(&z_); }

  Result<size_t> Read(char* out, size_t size) override {
    if (!init_ok_) return Status(StatusCode::kInternal, "zlib initialisation failed");
    if (finished_ || size == 0) return size_t{0};
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    while (z_.avail_out > 0) {
      if (z_.avail_in == 0) {
        auto n = in_->Read(buffer_.data(), buffer_.size());
        if (!n.ok()) return n.status();
        if (*n == 0) {
          if (member_started_) {
            return InvalidInput("truncated gzip data (the compressed stream ends early) at byte " +
                                std::to_string(in_->source_offset()));
          }
          finished_ = true;
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(buffer_.data());
        z_.avail_in = static_cast<uInt>(*n);
      }
      member_started_ = true;
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_started_ = false;
        // Another member may follow; skip trailing zero padding some tools write.
        while (z_.avail_in > 0 && *z_.next_in == 0) {
          ++z_.next_in;
          --z_.avail_in;
        }
        if (inflateReset(&z_) != Z_OK) return Status(StatusCode::kInternal, "zlib reset failed");
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        std::string why = z_.msg ? z_.msg : "corrupt data";
        return InvalidInput("gzip data is corrupt (" + why + ") near compressed byte " +
                            std::to_string(in_->source_offset() - z_.avail_in));
      }
    }
    return size - z_.avail_out;
  }
  uint64_t source_offset() const override { return in_->source_offset(); }

 private:
  std::unique_ptr<ByteStream> in_;
  std::vector<char> buffer_;
  z_stream z_;
  bool init_ok_ = false;
  bool finished_ = false;
  bool member_started_ = false;
};

}  // namespace

Result<std::unique_ptr<ByteStream>> OpenFileStream(const std::string& path) {
  if (path == "-") return std::unique_ptr<ByteStream>(new FileStream(STDIN_FILENO, false));
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return NotFound("no such file");
    return IoError(std::string("cannot open: ") + std::strerror(err));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<ByteStream>(new FileStream(fd, true));
}

std::unique_ptr<ByteStream> MakeMemoryStream(std::string data) {
  return std::make_unique<MemoryStream>(std::move(data));
}

std::unique_ptr<ByteStream> MakeGzipStream(std::unique_ptr<ByteStream> compressed) {
  return std::make_unique<GzipStream>(std::move(compressed));
}

std::unique_ptr<ByteStream> MakePrefixedStream(std::string prefix, std::unique_ptr<ByteStream> rest) {
  return std::make_unique<PrefixedStream>(std::move(prefix), std::move(rest));
}

Result<std::string> ReadUpTo(ByteStream& stream, size_t max_bytes) {
  // The buffer grows with what arrives, not to `max_bytes` at once: a limit is a ceiling
  // (mig-plan's CSV allows 256 MiB), and a small file must not cost it in zeroed memory.
  std::string out;
  size_t filled = 0;
  size_t chunk = std::min<size_t>(max_bytes, 1 << 16);
  while (filled < max_bytes) {
    if (out.size() == filled) out.resize(filled + std::min(chunk, max_bytes - filled));
    auto n = stream.Read(out.data() + filled, out.size() - filled);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    filled += *n;
    if (filled == out.size() && chunk < (1u << 24)) chunk *= 2;
  }
  out.resize(filled);
  return out;
}

Result<std::string> ReadAll(ByteStream& stream) {
  std::string out;
  // A stream that knows its size (a regular file, a buffer) fills one allocation; others
  // grow it as they arrive. Reading through a buffer costs a copy, but no chunk is
  // zero-filled ahead only to be cut back (a small file took a 64 KiB chunk, then a
  // 128 KiB one for the read that found the end).
  std::optional<uint64_t> left = stream.size_left();
  if (left && *left < (uint64_t{1} << 31)) out.reserve(static_cast<size_t>(*left));
  std::vector<char> buffer(size_t{1} << 16);
  while (true) {
    auto n = stream.Read(buffer.data(), buffer.size());
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    out.append(buffer.data(), *n);
  }
  return out;
}

}  // namespace kraken
