// Names and descriptions of NVML return codes. The names ("NOT_SUPPORTED") are what NVML
// captures store; the descriptions are for messages.
#pragma once

#include <optional>
#include <string_view>

#include "collectors/nvml/nvml_api.h"

namespace kraken::nvml {

// "NOT_SUPPORTED" for NVML_ERROR_NOT_SUPPORTED, "SUCCESS" for 0; "" for a code NVML does
// not define.
std::string_view ReturnCodeName(nvmlReturn_t rc);
// The code a name stands for; nullopt for an unknown name.
std::optional<nvmlReturn_t> ReturnCodeFromName(std::string_view name);
// A sentence for messages: "the device does not support this query (NOT_SUPPORTED)".
std::string_view ReturnCodeDescription(nvmlReturn_t rc);

}  // namespace kraken::nvml
