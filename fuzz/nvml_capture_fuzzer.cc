// libFuzzer target: any byte string through the NVML capture parser (what
// libkraken_nvml_replay.so reads at nvmlInit). A capture that parses must write back to
// text that parses to the same text again. Corpus: tests/fixtures/nvml.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/nvml/capture_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto capture = kraken::nvml::ParseCapture(input);
  if (!capture.ok()) {
    if (capture.status().message().empty()) __builtin_trap();  // errors must explain themselves
    return 0;
  }
  std::string text = kraken::nvml::WriteCapture(*capture);
  auto again = kraken::nvml::ParseCapture(text);
  if (!again.ok() || kraken::nvml::WriteCapture(*again) != text) __builtin_trap();
  return 0;
}
