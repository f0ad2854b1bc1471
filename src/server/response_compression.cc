#include "server/response_compression.h"

#include <zlib.h>

namespace kraken::server {
namespace {

// Below this, the library's Brotli takes well under a millisecond.
constexpr size_t kCompressFromBytes = 32 * 1024;

}  // namespace

std::string GzipBody(std::string_view data, int level) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int status = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return status == Z_STREAM_END ? out : std::string();
}

bool AcceptsGzip(const httplib::Request& req) {
  return req.get_header_value("Accept-Encoding").find("gzip") != std::string::npos;
}

const char* JsonTypeFor(size_t body_bytes) {
  return body_bytes < kCompressFromBytes ? "application/json" : kUncompressedJsonType.data();
}

}  // namespace kraken::server
