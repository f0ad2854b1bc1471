// The value grammar of the NVML capture's text form (capture_parse_values.h): what each
// `key = value` line's value may look like. Strict: a value must be exactly one of these.
#include "collectors/nvml/capture_parse_values.h"

#include <cstring>

#include "collectors/nvml/capture_format.h"

namespace kraken::nvml::capture_text {
namespace {

bool ParseInstanceId(std::string_view s, uint32_t& id) {
  if (s == "-") {
    id = NVML_NO_INSTANCE_ID;
    return true;
  }
  return Integer(s, id);
}

}  // namespace

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Tokens(std::string_view s) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) tokens.push_back(s.substr(start, i - start));
  }
  return tokens;
}

bool Real(std::string_view s, double& v) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}

bool ParseU32(std::string_view s, uint32_t& v) { return Integer(TrimSpaces(s), v); }
bool ParseU64(std::string_view s, uint64_t& v) { return Integer(TrimSpaces(s), v); }
bool ParseI32(std::string_view s, int32_t& v) { return Integer(TrimSpaces(s), v); }
bool ParseText(std::string_view s, std::string& v) {
  v.assign(s);
  return !s.empty();
}
bool ParsePair(std::string_view s, std::pair<uint32_t, uint32_t>& v) { return Integers<uint32_t>(s, {&v.first, &v.second}); }
bool ParseIntPair(std::string_view s, std::pair<int32_t, int32_t>& v) { return Integers<int32_t>(s, {&v.first, &v.second}); }
bool ParseUtilization(std::string_view s, UtilizationRates& v) { return Integers<uint32_t>(s, {&v.gpu_pct, &v.mem_pct}); }
bool ParseMemory(std::string_view s, MemoryInfo& v) {
  return Integers<uint64_t>(s, {&v.total, &v.reserved, &v.free, &v.used});
}
bool ParseCpus(std::string_view s, std::vector<uint32_t>& v) { return ParseCpuList(s, v); }

bool ParseAttributes(std::string_view s, Attributes& a) {
  auto t = Tokens(s);
  return t.size() == 9 && Integer(t[0], a.sm_count) && Integer(t[1], a.shared_copy_engines) &&
         Integer(t[2], a.shared_decoders) && Integer(t[3], a.shared_encoders) && Integer(t[4], a.shared_jpegs) &&
         Integer(t[5], a.shared_ofas) && Integer(t[6], a.gpu_instance_slices) &&
         Integer(t[7], a.compute_instance_slices) && Integer(t[8], a.memory_mib);
}

bool ParsePci(std::string_view s, PciInfo& p) {
  auto t = Tokens(s);
  if (t.size() != 6 || t[0].size() >= NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE) return false;
  p.bus_id.assign(t[0]);
  return Integer(t[1], p.domain, 16) && Integer(t[2], p.bus, 16) && Integer(t[3], p.device, 16) &&
         Integer(t[4], p.device_id, 16) && Integer(t[5], p.subsystem_id, 16);
}

bool ParseField(std::string_view s, FieldAnswer& f) {
  auto t = Tokens(s);
  if (t.size() != 2) return false;
  nvmlValue_t v;
  std::memset(&v, 0, sizeof(v));
  bool ok = false;
  if (t[0] == "double") {
    f.value_type = NVML_VALUE_TYPE_DOUBLE;
    ok = Real(t[1], v.dVal);
  } else if (t[0] == "uint") {
    f.value_type = NVML_VALUE_TYPE_UNSIGNED_INT;
    ok = Integer(t[1], v.uiVal);
  } else if (t[0] == "ulong") {
    f.value_type = NVML_VALUE_TYPE_UNSIGNED_LONG;
    ok = Integer(t[1], v.ulVal);
  } else if (t[0] == "ullong") {
    f.value_type = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    ok = Integer(t[1], v.ullVal);
  } else if (t[0] == "sllong") {
    f.value_type = NVML_VALUE_TYPE_SIGNED_LONG_LONG;
    ok = Integer(t[1], v.sllVal);
  } else if (t[0] == "sint") {
    f.value_type = NVML_VALUE_TYPE_SIGNED_INT;
    ok = Integer(t[1], v.siVal);
  } else if (t[0] == "ushort") {
    f.value_type = NVML_VALUE_TYPE_UNSIGNED_SHORT;
    ok = Integer(t[1], v.usVal);
  }
  std::memcpy(&f.bits, &v, sizeof(f.bits));
  return ok;
}

bool ParseProcess(std::string_view s, ProcessAnswer& p) {
  auto t = Tokens(s);
  return t.size() == 4 && Integer(t[0], p.pid) && Integer(t[1], p.used_bytes) &&
         ParseInstanceId(t[2], p.gpu_instance_id) && ParseInstanceId(t[3], p.compute_instance_id);
}

bool ParseProcessSample(std::string_view s, ProcessUtilization& u) {
  auto t = Tokens(s);
  return t.size() == 6 && Integer(t[0], u.pid) && Integer(t[1], u.time_us) && Integer(t[2], u.sm_pct) &&
         Integer(t[3], u.mem_pct) && Integer(t[4], u.enc_pct) && Integer(t[5], u.dec_pct);
}

// Cuts "12.rest" into 12 and "rest"; false when `s` does not start that way.
bool CutIndex(std::string_view& s, uint32_t& index) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos || !Integer(s.substr(0, dot), index)) return false;
  s.remove_prefix(dot + 1);
  return true;
}

bool Consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace kraken::nvml::capture_text
