// libFuzzer target: the config file (--config), kraken's keys and the KRAKEN design's
// YAML keys, through the whole resolution (parse, design mapping, every key's value
// parser) as `kraken --config FILE` runs it. Built with `make fuzz`; seeds in
// fuzz/seeds/config and deploy/'s config files.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "config/config.h"
#include "config/config_file.h"
#include "config/design_config.h"

namespace {

// The file ResolveConfig reads, rewritten for every input.
struct ConfigFile {
  std::string path;
  ConfigFile() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kraken-fuzz-config-XXXXXX").string();
    int fd = mkstemp(pattern.data());
    if (fd >= 0) close(fd);
    path = pattern;
  }
  ~ConfigFile() { unlink(path.c_str()); }
  bool Write(const uint8_t* data, size_t size) const {
    int fd = open(path.c_str(), O_WRONLY | O_TRUNC);
    if (fd < 0) return false;
    bool ok = write(fd, data, size) == static_cast<ssize_t>(size);
    close(fd);
    return ok;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ConfigFile file_owner;  // removed when the fuzzer exits
  static ConfigFile* file = &file_owner;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto settings = kraken::config::ParseConfigText("fuzz.yaml", text);
  if (settings.ok()) {
    auto mapped = kraken::config::MapDesignSettings("fuzz.yaml", *settings);
    if (!mapped.ok() && mapped.status().message().empty()) __builtin_trap();
  } else if (settings.status().message().empty()) {
    __builtin_trap();
  }
  if (!file->Write(data, size)) return 0;
  kraken::config::ConfigInputs inputs;
  inputs.config_flag = file->path;
  auto resolved = kraken::config::ResolveConfig(inputs);
  if (!resolved.ok() && resolved.status().message().empty()) __builtin_trap();
  return 0;
}
