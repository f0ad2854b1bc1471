#include "base/string_table.h"

namespace kraken {

StringTable::StringTable() { Intern(""); }

StringId StringTable::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), id);
  return id;
}

}  // namespace kraken
