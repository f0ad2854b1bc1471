// libFuzzer target: any byte string through the NVML capture parser (what
// libkraken_nvml_replay.so reads at nvmlInit). A capture that parses must write back to
// text that parses to the same text again. Corpus: tests/fixtures/nvml.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/nvml/capture_format.h"
#include "capture_round_trip.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto capture = kraken::nvml::ParseCapture(input);
  kraken::fuzzing::CheckExplained(capture);
  if (capture.ok()) kraken::fuzzing::CheckCaptureRoundTrip(*capture);
  return 0;
}
