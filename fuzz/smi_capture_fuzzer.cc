// libFuzzer target: any byte string as an nvidia-smi capture through
// `record-nvml --from-nvidia-smi`'s converter. A capture it derives must write to text the
// replay library reads back to the same text; an error must explain itself.
// Corpus: the real captures of the shared data (scripts/fuzz.sh).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "collectors/nvml/capture_format.h"
#include "collectors/nvml/smi_capture_converter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto capture = kraken::nvml::CaptureFromNvidiaSmiText("fuzz.txt", text);
  if (!capture.ok()) {
    if (capture.status().message().empty()) __builtin_trap();
    return 0;
  }
  const std::string written = kraken::nvml::WriteCapture(*capture);
  auto again = kraken::nvml::ParseCapture(written);
  if (!again.ok()) {
    std::fprintf(stderr, "the derived capture does not parse: %s\n", again.status().message().c_str());
    __builtin_trap();
  }
  const std::string rewritten = kraken::nvml::WriteCapture(*again);
  if (rewritten != written) {
    size_t at = 0;
    while (at < written.size() && at < rewritten.size() && written[at] == rewritten[at]) ++at;
    std::fprintf(stderr, "the derived capture writes back differently from byte %zu: '%.80s' vs '%.80s'\n", at,
                 written.c_str() + at - std::min<size_t>(at, 40), rewritten.c_str() + at - std::min<size_t>(at, 40));
    __builtin_trap();
  }
  return 0;
}
