// The little of a request head the connection front (connection_front.h) reads itself,
// from bytes a client controls, before cpp-httplib parses the request properly.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kraken::server {

// What the front needs to know of a request head; nullopt when `data` holds no complete
// head yet. `head_bytes` counts the blank line that ends it.
struct RequestHead {
  std::string method, path;  // path without the query
  size_t head_bytes = 0;
  std::optional<size_t> content_length;  // nullopt: none, or not a number
  bool chunked = false;
  bool expect_continue = false;
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
};
std::optional<RequestHead> ParseRequestHead(std::string_view data);

}  // namespace kraken::server
