// libFuzzer target: the config file (--config), kraken's keys and the KRAKEN design's
// YAML keys, through the whole resolution (parse, design mapping, every key's value
// parser) as `kraken --config FILE` runs it. Built with `make fuzz`; seeds in
// fuzz/seeds/config and deploy/'s config files.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/config_file.h"
#include "config/design_config.h"
#include "fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static kraken::fuzzing::FuzzInputFile file_owner("kraken-fuzz-config");  // removed when the fuzzer exits
  static kraken::fuzzing::FuzzInputFile* file = &file_owner;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto settings = kraken::config::ParseConfigText("fuzz.yaml", text);
  if (settings.ok()) {
    auto mapped = kraken::config::MapDesignSettings("fuzz.yaml", *settings);
    if (!mapped.ok() && mapped.status().message().empty()) __builtin_trap();
  } else if (settings.status().message().empty()) {
    __builtin_trap();
  }
  if (!file->Write(std::string_view(reinterpret_cast<const char*>(data), size))) return 0;
  kraken::config::ConfigInputs inputs;
  inputs.config_flag = file->path;
  auto resolved = kraken::config::ResolveConfig(inputs);
  if (!resolved.ok() && resolved.status().message().empty()) __builtin_trap();
  return 0;
}
