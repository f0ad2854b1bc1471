#include "server/request_head.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"

namespace kraken::server {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<size_t> ParseLength(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  size_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  return value;
}

// The line of `text` starting at `start` without its line end; `next` gets the offset
// after it (npos at the end).
std::string_view LineAt(std::string_view text, size_t start, size_t& next) {
  size_t end = text.find('\n', start);
  next = end == std::string_view::npos ? end : end + 1;
  std::string_view line = text.substr(start, end == std::string_view::npos ? end : end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

std::optional<RequestHead> ParseRequestHead(std::string_view data) {
  size_t end = data.find("\r\n\r\n"), terminator = 4;
  size_t bare = data.find("\n\n");
  if (bare != std::string_view::npos && (end == std::string_view::npos || bare < end)) end = bare, terminator = 2;
  if (end == std::string_view::npos) return std::nullopt;
  RequestHead head;
  head.head_bytes = end + terminator;
  std::string_view text = data.substr(0, end);
  size_t next = 0;
  std::string_view line = LineAt(text, 0, next);
  size_t method_end = line.find(' ');
  if (method_end != std::string_view::npos) {
    head.method = std::string(line.substr(0, method_end));
    std::string_view target = line.substr(method_end + 1);
    target = target.substr(0, target.find(' '));
    head.path = std::string(target.substr(0, target.find('?')));
  }
  while (next != std::string_view::npos) {
    line = LineAt(text, next, next);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = line.substr(0, colon), value = Trim(line.substr(colon + 1));
    head.headers.emplace_back(name, value);
    if (EqualsIgnoreCase(name, "Content-Length")) {
      if (!head.content_length) head.content_length = ParseLength(value);
    } else if (EqualsIgnoreCase(name, "Transfer-Encoding")) {
      head.chunked = true;
    } else if (EqualsIgnoreCase(name, "Expect")) {
      head.expect_continue = EqualsIgnoreCase(value, "100-continue");
    }
  }
  return head;
}

}  // namespace kraken::server
