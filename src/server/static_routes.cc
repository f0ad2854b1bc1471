// The embedded dashboard (web/, src/report/web_assets.h): "/" and "/assets/*".
#include "report/web_assets.h"
#include "server/http_util.h"
#include "server/server_context.h"

namespace kraken::server {
namespace {

void ServeAsset(const std::string& path, httplib::Response& res) {
  const web::Asset* asset = web::FindAsset(path);
  if (asset == nullptr) return SendError(res, 404, "not_found", "no asset " + path);
  res.set_header("Cache-Control", path == "/" ? "no-cache" : "max-age=300");
  res.set_content(asset->data.data(), asset->data.size(), std::string(asset->content_type));
}

}  // namespace

void AddStaticRoutes(httplib::Server& server, ServerContext&) {
  server.Get("/", [](const httplib::Request&, httplib::Response& res) { ServeAsset("/", res); });
  server.Get(R"(/assets/[A-Za-z0-9._/-]+)", [](const httplib::Request& req, httplib::Response& res) {
    ServeAsset(req.path, res);
  });
}

}  // namespace kraken::server
