// Reading the YAML config file into (key, text, line) settings. Sections nest:
//   sampling:
//     interval: 100ms
// is the key "sampling.interval". What the values mean is config_keys' business; this
// only checks the shape (maps of scalars or of lists of scalars, no repeated key) and
// keeps the line of each. kraken's own keys take one value; lists exist for the KRAKEN
// design's keys (`enabled: [utilization, power]`, config/design_config.h).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace kraken::config {

struct FileSetting {
  std::string key;   // dotted
  std::string text;  // the scalar as written (without quotes)
  int line = 0;      // 1-based
  bool is_list = false;            // written as a YAML list
  std::vector<std::string> items = {};  // the list's scalars (is_list)
};

// `path` for messages; `text` the file's content. Errors: "PATH:LINE: ...".
Result<std::vector<FileSetting>> ParseConfigText(const std::string& path, const std::string& text);
Result<std::vector<FileSetting>> ReadConfigFile(const std::string& path);

}  // namespace kraken::config
