// Large responses kept away from cpp-httplib's own compression: built with Brotli, the
// library compresses every body of a compressible type at Brotli's highest quality for a
// client that accepts "br" (every browser), before any handler of kraken's could step in:
// 0.6-0.8 s for the GenAI trace's 387 KB report document and 2.2 s for the 674 KB dashboard
// bundle on the 2-core build machine, more than the request itself took. The bundle is
// gzipped once by kraken; large JSON goes out uncompressed (a dashboard on the loopback or
// a LAN gains nothing from 0.7 s of Brotli). Both as types the library leaves alone: it
// matches exact type strings.
#pragma once

#include <httplib.h>

#include <string>
#include <string_view>

namespace kraken::server {

// The JavaScript type the library does not compress (it matches exact type strings).
inline constexpr std::string_view kUncompressedScriptType = "application/javascript; charset=utf-8";
// The JSON type the library does not compress: JSON is UTF-8 (RFC 8259).
inline constexpr std::string_view kUncompressedJsonType = "application/json; charset=utf-8";

// gzip of `data` at `level` (1..9), or "" when zlib fails.
std::string GzipBody(std::string_view data, int level);

bool AcceptsGzip(const httplib::Request& req);

// The Content-Type of a JSON body: application/json, or from 32 KiB on the charset form the
// library does not compress.
const char* JsonTypeFor(size_t body_bytes);

}  // namespace kraken::server
