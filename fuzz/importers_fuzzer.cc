// libFuzzer target: any byte string through the import driver (sniffing, gzip, tar and
// every importer). Built with `make fuzz` (clang); corpus: real files of shared/data.
#include <cstddef>
#include <cstdint>
#include <string>

#include "importers/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  auto result = kraken::ImportBuffer(kraken::BuiltinImporters(), "fuzz-input", std::move(input));
  if (!result.ok() && result.status().message().empty()) __builtin_trap();  // errors must explain themselves
  return 0;
}
