// The tracer's settings read from a map instead of the environment, for the tests.
#pragma once

#include <map>
#include <string>

#include "collectors/cupti/tracer_config.h"

namespace kraken::cupti {

inline TracerConfig TracerConfigFromVars(const std::map<std::string, std::string>& vars) {
  return ReadTracerConfig([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

}  // namespace kraken::cupti
