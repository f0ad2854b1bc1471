// Joining names and numbers into one line of text (for reasons and labels).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kraken {

inline std::string JoinText(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.append(separator);
    out.append(parts[i]);
  }
  return out;
}

}  // namespace kraken
