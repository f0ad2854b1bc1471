// The built-in catalog of device models and their published peaks, and the rules that
// recognise a model from the names traces, nvidia-smi and DCGM print.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/device.h"

namespace kraken {

std::span<const DeviceSpec> DeviceCatalog();

// Finds the catalog entry for a reported device name ("Tesla V100-SXM2-32GB",
// "NVIDIA H100 80GB HBM3", "A100-PG509-200"). `memory_bytes` (when >= 0) separates
// variants the name leaves open (A100 40 GB vs 80 GB). Returns nullptr when the name is
// not recognised or is ambiguous: kraken does not guess a device's peaks.
const DeviceSpec* MatchDeviceSpec(std::string_view reported_name, int64_t memory_bytes = -1);

// Finds an entry by its id ("h100-sxm") or by a name MatchDeviceSpec recognises; for --device.
const DeviceSpec* FindDeviceSpec(std::string_view id_or_name);

}  // namespace kraken
