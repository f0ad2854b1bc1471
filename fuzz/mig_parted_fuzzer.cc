// libFuzzer target: the nvidia-mig-parted file `kraken mig apply` reads (a user's file,
// usually written by `kraken mig-plan --emit mig-parted`, perhaps edited by hand). Errors
// must name the file and line. Built with `make fuzz`; seeds in fuzz/seeds/mig_parted.
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/mig_apply_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = kraken::ParseMigPartedFile(text, "fuzz.yaml");
  if (!parsed.ok()) {
    if (parsed.status().message().rfind("fuzz.yaml", 0) != 0) __builtin_trap();
    return 0;
  }
  // Every name listed has its configuration, and the reverse.
  if (parsed->names.size() != parsed->configs.size()) __builtin_trap();
  for (const std::string& name : parsed->names)
    if (parsed->configs.count(name) == 0) __builtin_trap();
  return 0;
}
