#include "config/config_file.h"

// yaml-cpp 0.7's node/impl.h trips GCC 12's -Wdangling-pointer (a false positive in the
// library's own inline code), which -Werror would turn into a build failure.
#if defined(__GNUC__) && !defined(__clang__)  // clang (make fuzz) has no such warning
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/yaml.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <fstream>
#include <map>
#include <sstream>

#include "base/small_file.h"

namespace kraken::config {
namespace {

int LineOf(const YAML::Node& node) { return node.Mark().line + 1; }

// Flattens one map level; yaml-cpp reports problems by exception, caught by the caller.
Status Flatten(const std::string& path, const YAML::Node& map, const std::string& prefix,
               std::map<std::string, int>& seen, std::vector<FileSetting>& out) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    // Copies, not references: yaml-cpp's iterator hands out a temporary pair (it->first
    // of a proxy), so a reference would dangle at the end of this statement (ASan's
    // stack-use-after-scope). Nodes are handles, so the copies are cheap.
    YAML::Node key_node = it->first;
    YAML::Node value = it->second;
    int line = LineOf(key_node);
    std::string where = path + ":" + std::to_string(line) + ": ";
    if (!key_node.IsScalar() || key_node.Scalar().empty()) return InvalidInput(where + "a key must be a plain name");
    std::string key = prefix + key_node.Scalar();
    auto [previous, inserted] = seen.emplace(key, line);
    if (!inserted)
      return InvalidInput(where + "key '" + key + "' appears twice (also on line " + std::to_string(previous->second) +
                          ")");
    if (value.IsMap()) {
      KRAKEN_RETURN_IF_ERROR(Flatten(path, value, key + ".", seen, out));
    } else if (value.IsScalar()) {
      out.push_back({key, value.Scalar(), line});
    } else if (value.IsSequence()) {
      FileSetting list{key, "", line, true, {}};
      for (const YAML::Node& item : value) {
        if (!item.IsScalar()) return InvalidInput(where + "key '" + key + "' takes a list of plain values");
        list.items.push_back(item.Scalar());
        list.text += (list.text.empty() ? "" : ",") + item.Scalar();
      }
      out.push_back(std::move(list));
    } else {
      return InvalidInput(where + "key '" + key + "' has no value");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<FileSetting>> ParseConfigText(const std::string& path, const std::string& text) {
  std::vector<FileSetting> out;
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsNull() || !root.IsDefined()) return out;  // an empty file: all defaults
    if (!root.IsMap()) return InvalidInput(path + ":" + std::to_string(LineOf(root)) + ": the file must be a map of settings (key: value)");
    std::map<std::string, int> seen;
    KRAKEN_RETURN_IF_ERROR(Flatten(path, root, "", seen, out));
  } catch (const YAML::Exception& e) {
    return InvalidInput(path + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  return out;
}

// A config file is a few dozen lines; 1 MiB is generous and bounds a mistaken path.
constexpr size_t kMaxConfigFileBytes = 1 * kMiB;

Result<std::vector<FileSetting>> ReadConfigFile(const std::string& path) {
  KRAKEN_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, kMaxConfigFileBytes, "the config file"));
  return ParseConfigText(path, text);
}

}  // namespace kraken::config
