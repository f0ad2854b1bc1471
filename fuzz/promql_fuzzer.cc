// libFuzzer target: Prometheus query_range answers (what `kraken cluster --prometheus`
// reads from a server it does not control) and server URLs. Built with `make fuzz`;
// seeds in fuzz/seeds/promql.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "promql/prometheus_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto series = kraken::promql::ParseRangeResponse(text);
  if (!series.ok() && series.status().message().empty()) __builtin_trap();
  if (series.ok())
    for (const auto& s : *series)
      if (s.times_ms.size() != s.values.size()) __builtin_trap();  // one value per time
  (void)kraken::promql::ParseServerUrl(text.substr(0, 512));
  return 0;
}
