#include "collectors/nvml/nvml_return_codes.h"

#include <array>

namespace kraken::nvml {
namespace {

struct CodeInfo {
  nvmlReturn_t code;
  std::string_view name;
  std::string_view description;
};

constexpr std::array kCodes = {
    CodeInfo{NVML_SUCCESS, "SUCCESS", "success"},
    CodeInfo{NVML_ERROR_UNINITIALIZED, "UNINITIALIZED", "NVML was not initialized"},
    CodeInfo{NVML_ERROR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "an argument is invalid"},
    CodeInfo{NVML_ERROR_NOT_SUPPORTED, "NOT_SUPPORTED", "the device does not support this query"},
    CodeInfo{NVML_ERROR_NO_PERMISSION, "NO_PERMISSION", "no permission for this query"},
    CodeInfo{NVML_ERROR_ALREADY_INITIALIZED, "ALREADY_INITIALIZED", "already initialized"},
    CodeInfo{NVML_ERROR_NOT_FOUND, "NOT_FOUND", "nothing found"},
    CodeInfo{NVML_ERROR_INSUFFICIENT_SIZE, "INSUFFICIENT_SIZE", "the buffer is too small"},
    CodeInfo{NVML_ERROR_INSUFFICIENT_POWER, "INSUFFICIENT_POWER", "external power cables are not attached"},
    CodeInfo{NVML_ERROR_DRIVER_NOT_LOADED, "DRIVER_NOT_LOADED", "the NVIDIA driver is not loaded"},
    CodeInfo{NVML_ERROR_TIMEOUT, "TIMEOUT", "timed out"},
    CodeInfo{NVML_ERROR_IRQ_ISSUE, "IRQ_ISSUE", "the kernel detected an interrupt issue with a GPU"},
    CodeInfo{NVML_ERROR_LIBRARY_NOT_FOUND, "LIBRARY_NOT_FOUND", "the NVML library was not found"},
    CodeInfo{NVML_ERROR_FUNCTION_NOT_FOUND, "FUNCTION_NOT_FOUND", "this NVML library lacks the function"},
    CodeInfo{NVML_ERROR_CORRUPTED_INFOROM, "CORRUPTED_INFOROM", "the infoROM is corrupted"},
    CodeInfo{NVML_ERROR_GPU_IS_LOST, "GPU_IS_LOST", "the GPU fell off the bus"},
    CodeInfo{NVML_ERROR_RESET_REQUIRED, "RESET_REQUIRED", "the GPU needs a reset"},
    CodeInfo{NVML_ERROR_OPERATING_SYSTEM, "OPERATING_SYSTEM", "the operating system blocked the GPU"},
    CodeInfo{NVML_ERROR_LIB_RM_VERSION_MISMATCH, "LIB_RM_VERSION_MISMATCH",
             "the NVML library and the kernel driver versions differ"},
    CodeInfo{NVML_ERROR_IN_USE, "IN_USE", "the GPU is in use"},
    CodeInfo{NVML_ERROR_MEMORY, "MEMORY", "out of memory"},
    CodeInfo{NVML_ERROR_NO_DATA, "NO_DATA", "no data"},
    CodeInfo{NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "VGPU_ECC_NOT_SUPPORTED", "not available with ECC on"},
    CodeInfo{NVML_ERROR_INSUFFICIENT_RESOURCES, "INSUFFICIENT_RESOURCES", "out of resources"},
    CodeInfo{NVML_ERROR_FREQ_NOT_SUPPORTED, "FREQ_NOT_SUPPORTED", "frequency not supported"},
    CodeInfo{NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "ARGUMENT_VERSION_MISMATCH",
             "the driver does not know this struct version"},
    CodeInfo{NVML_ERROR_DEPRECATED, "DEPRECATED", "deprecated"},
    CodeInfo{NVML_ERROR_NOT_READY, "NOT_READY", "not ready"},
    CodeInfo{NVML_ERROR_GPU_NOT_FOUND, "GPU_NOT_FOUND", "no GPUs were found"},
    CodeInfo{NVML_ERROR_INVALID_STATE, "INVALID_STATE", "invalid state"},
    CodeInfo{NVML_ERROR_UNKNOWN, "UNKNOWN", "an unknown driver error"},
};

const CodeInfo* Find(nvmlReturn_t rc) {
  for (const CodeInfo& info : kCodes)
    if (info.code == rc) return &info;
  return nullptr;
}

}  // namespace

std::string_view ReturnCodeName(nvmlReturn_t rc) {
  const CodeInfo* info = Find(rc);
  return info != nullptr ? info->name : std::string_view();
}

std::optional<nvmlReturn_t> ReturnCodeFromName(std::string_view name) {
  for (const CodeInfo& info : kCodes)
    if (info.name == name) return info.code;
  return std::nullopt;
}

std::string_view ReturnCodeDescription(nvmlReturn_t rc) {
  const CodeInfo* info = Find(rc);
  return info != nullptr ? info->description : std::string_view("an NVML error kraken does not know");
}

}  // namespace kraken::nvml
