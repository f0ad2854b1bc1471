// Value helpers shared by the capture parser, the writer and the collector.
#include <charconv>
#include <cstring>

#include "collectors/nvml/capture.h"
#include "collectors/nvml/capture_format.h"

namespace kraken::nvml {

double FieldNumber(const FieldAnswer& field) {
  nvmlValue_t value;
  std::memcpy(&value, &field.bits, sizeof(value));
  switch (field.value_type) {
    case NVML_VALUE_TYPE_DOUBLE: return value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return static_cast<double>(value.uiVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return static_cast<double>(value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return static_cast<double>(value.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return static_cast<double>(value.sllVal);
    case NVML_VALUE_TYPE_SIGNED_INT: return static_cast<double>(value.siVal);
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return static_cast<double>(value.usVal);
    default: return 0;
  }
}

std::string_view ValueTypeName(int32_t value_type) {
  switch (value_type) {
    case NVML_VALUE_TYPE_DOUBLE: return "double";
    case NVML_VALUE_TYPE_UNSIGNED_INT: return "uint";
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return "ulong";
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return "ullong";
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return "sllong";
    case NVML_VALUE_TYPE_SIGNED_INT: return "sint";
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return "ushort";
    default: return "";
  }
}

std::string FormatCpuList(const std::vector<uint32_t>& cpus) {
  std::string out;
  size_t i = 0;
  while (i < cpus.size()) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

bool ParseCpuList(std::string_view text, std::vector<uint32_t>& cpus) {
  cpus.clear();
  constexpr uint32_t kMaxCpu = 1u << 16;  // far above any real node, bounds the list
  auto parse = [](std::string_view s, uint32_t& v) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty() && v < kMaxCpu;
  };
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view range = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) return false;  // trailing comma
    size_t dash = range.find('-');
    uint32_t first = 0, last = 0;
    if (!parse(range.substr(0, dash), first)) return false;
    last = first;
    if (dash != std::string_view::npos && !parse(range.substr(dash + 1), last)) return false;
    if (last < first || (!cpus.empty() && first <= cpus.back())) return false;
    for (uint32_t cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return true;
}

}  // namespace kraken::nvml
