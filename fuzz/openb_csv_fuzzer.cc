// libFuzzer target: the openb cluster-trace CSVs (node and pod lists, what `kraken pack`
// and POST /api/v1/pack read). The first byte picks the list. Built with `make fuzz`;
// seeds: the real lists of shared/data/alibaba-gpu-v2023 (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "importers/openb/openb_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    auto nodes = kraken::ParseOpenbNodes(text, "nodes.csv");
    if (!nodes.ok() && nodes.status().message().empty()) __builtin_trap();
  } else {
    auto pods = kraken::ParseOpenbPods(text, "pods.csv");
    if (!pods.ok() && pods.status().message().empty()) __builtin_trap();
  }
  return 0;
}
