// The config file of the KRAKEN design (docs/compat.md "KRAKEN config, environment and
// annotations"): its keys live under a `profiler:` root, beside or instead of kraken's
// own. Each design key either maps onto kraken keys (profiler.sampling.interval_ms: 100
// is sampling.interval: 100ms) or is one kraken does not act on, which gives one warning
// line naming the key's full path and why; never silently ignored. The table in
// design_config.cc is the one place that decides which.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/config_file.h"

namespace kraken::config {

// True for a file key under the design's root ("profiler.sampling.interval_ms").
bool IsDesignKey(std::string_view key);

// A kraken key set by a design key.
struct MappedSetting {
  std::string key;         // kraken's: "sampling.interval"
  std::string text;        // as kraken's key takes it: "100ms"
  std::string design_key;  // "profiler.sampling.interval_ms"
  int line = 0;
};

struct DesignMapping {
  std::vector<MappedSetting> settings;
  // "FILE:LINE: profiler.metrics.gpu.detailed_kernels: not acted on: <why>", one per key
  // (or per list item) that kraken does not act on.
  std::vector<std::string> warnings;
};

// Maps the design keys among `settings` (all of a file's settings: the file's own
// sampling.interval, if any, is the interval of profiler.sampling.buffer_size). Errors,
// "FILE:LINE: ...": a key under profiler: that the design does not have, a value the
// design key cannot have. Whether a mapped value suits kraken's key is checked by the
// caller, through that key (config_keys.h).
Result<DesignMapping> MapDesignSettings(const std::string& path, const std::vector<FileSetting>& settings);

// The table, for tests and the docs (docs/compat.md lists the same rows).
struct DesignKeyInfo {
  std::string_view key;     // under profiler: "sampling.interval_ms"
  std::string_view kraken;  // the kraken key(s) it sets; "" = not acted on
  std::string_view note;    // how it maps, or why kraken does not act on it
};
const std::vector<DesignKeyInfo>& DesignKeys();

}  // namespace kraken::config
