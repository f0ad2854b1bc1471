// libFuzzer target: any byte string as an nvidia-smi capture through
// `record-nvml --from-nvidia-smi`'s converter. A capture it derives must write to text the
// replay library reads back to the same text; an error must explain itself.
// Corpus: the real captures of the shared data (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string>

#include "collectors/nvml/smi_capture_converter.h"
#include "capture_round_trip.h"
#include "fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto capture = kraken::nvml::CaptureFromNvidiaSmiText("fuzz.txt", text);
  kraken::fuzzing::CheckExplained(capture);
  if (capture.ok()) kraken::fuzzing::CheckCaptureRoundTrip(*capture);
  return 0;
}
