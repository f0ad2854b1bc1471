// What both NVML capture fuzz targets ask of a capture they obtained (parsed from the input,
// or derived from an nvidia-smi capture): its text reads back, and writes back the same.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>

#include "collectors/nvml/capture_format.h"

namespace kraken::fuzzing {

// Traps, saying where, when the capture's text does not parse or writes back differently.
inline void CheckCaptureRoundTrip(const kraken::nvml::Capture& capture) {
  const std::string written = kraken::nvml::WriteCapture(capture);
  auto again = kraken::nvml::ParseCapture(written);
  if (!again.ok()) {
    std::fprintf(stderr, "the written capture does not parse: %s\n", again.status().message().c_str());
    __builtin_trap();
  }
  const std::string rewritten = kraken::nvml::WriteCapture(*again);
  if (rewritten == written) return;
  size_t at = 0;
  while (at < written.size() && at < rewritten.size() && written[at] == rewritten[at]) ++at;
  const size_t from = at - std::min<size_t>(at, 40);
  std::fprintf(stderr, "the capture writes back differently from byte %zu: '%.80s' vs '%.80s'\n", at,
               written.c_str() + from, rewritten.c_str() + from);
  __builtin_trap();
}

}  // namespace kraken::fuzzing
