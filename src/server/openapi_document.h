// The OpenAPI 3 description of the server (src/server/openapi.json, compiled in by
// src/server/CMakeLists.txt so the binary needs no file beside it).
#pragma once

#include <string_view>

namespace kraken::server {

std::string_view OpenApiDocument();

}  // namespace kraken::server
