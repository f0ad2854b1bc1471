// Interns strings: each distinct kernel or operator name is stored once and referred to
// by a 32-bit id. Traces repeat the same few thousand names hundreds of thousands of times.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace kraken {

using StringId = uint32_t;

class StringTable {
 public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId Intern(std::string_view s);
  std::string_view Get(StringId id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

  static constexpr StringId kEmpty = 0;  // id of ""

 private:
  std::deque<std::string> strings_;  // deque: references stay valid as it grows
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace kraken
