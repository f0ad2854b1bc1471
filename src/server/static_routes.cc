// The embedded dashboard (web/, src/report/web_assets.h): "/" and "/assets/*".
#include <map>
#include <mutex>

#include "report/web_assets.h"
#include "server/http_util.h"
#include "server/response_compression.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

// Each asset gzipped once, on its first request. Left to the HTTP library, every request
// of the 674 KB bundle from a browser (Accept-Encoding: gzip, deflate, br) was compressed
// again with Brotli at its highest quality: 2.2 s per page load on the 2-core build
// machine, more than everything the page then fetched and drew.
const std::string& GzippedAsset(const web::Asset& asset) {
  static std::mutex mutex;
  static std::map<std::string_view, std::string> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = cache.try_emplace(asset.path);
  if (fresh) it->second = GzipBody(asset.data, 6);
  return it->second;
}

void ServeAsset(const std::string& path, const httplib::Request& req, httplib::Response& res) {
  const web::Asset* asset = web::FindAsset(path);
  if (asset == nullptr) return SendError(res, 404, "not_found", "no asset " + path);
  res.set_header("Cache-Control", path == "/" ? "no-cache" : "max-age=300");
  res.set_header("Vary", "Accept-Encoding");
  // The bundle goes out as a type the library never compresses by itself (it would
  // compress it again, over this gzip); the small page and stylesheet are left to it.
  const bool script = asset->content_type.starts_with("text/javascript");
  std::string type = script ? std::string(kUncompressedScriptType) : std::string(asset->content_type);
  if (script && AcceptsGzip(req)) {
    const std::string& gzipped = GzippedAsset(*asset);
    if (!gzipped.empty()) {
      res.set_header("Content-Encoding", "gzip");
      return res.set_content(gzipped.data(), gzipped.size(), type);
    }
  }
  res.set_content(asset->data.data(), asset->data.size(), type);
}

}  // namespace

void AddStaticRoutes(httplib::Server& server, ServerContext&) {
  server.Get("/", [](const httplib::Request& req, httplib::Response& res) { ServeAsset("/", req, res); });
  server.Get(R"(/assets/[A-Za-z0-9._/-]+)", [](const httplib::Request& req, httplib::Response& res) {
    ServeAsset(req.path, req, res);
  });
}

}  // namespace kraken::server
