// The dashboard's front end (web/), bundled at build time and embedded in the binary:
// `kraken serve` serves these files and `kraken report` inlines them, so neither needs
// the network or files beside the binary. The definitions are generated
// (cmake/embed_assets.cmake, web/CMakeLists.txt).
#pragma once

#include <span>
#include <string_view>

namespace kraken::web {

struct Asset {
  std::string_view path;          // URL path: "/", "/assets/app.js", ...
  std::string_view content_type;  // "text/html; charset=utf-8", ...
  std::string_view data;
};

std::span<const Asset> EmbeddedAssets();

// The asset served at `path`, or null.
inline const Asset* FindAsset(std::string_view path) {
  for (const Asset& asset : EmbeddedAssets())
    if (asset.path == path) return &asset;
  return nullptr;
}

}  // namespace kraken::web
