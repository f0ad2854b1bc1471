// The value grammar of the NVML capture's text form (docs/nvml-capture-format.md): numbers,
// "a b c" lists, the PCI, attribute, field, process and sample values, and the "12.rest"
// key cuts. Apart from capture_parser.cc's line and section parser, which is the only user,
// so that each file reads as one thing: what a value looks like, and where it goes.
#pragma once

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "collectors/nvml/capture.h"

namespace kraken::nvml::capture_text {

// `s` without the spaces and tabs around it (and a trailing '\r').
std::string_view TrimSpaces(std::string_view s);
// The words of `s`, split at spaces and tabs.
std::vector<std::string_view> Tokens(std::string_view s);

// The whole of `s` as a number (base 16 takes an optional 0x); false on anything else.
template <typename T>
bool Integer(std::string_view s, T& v, int base = 10) {
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && end == s.data() + s.size();
}

bool Real(std::string_view s, double& v);

// Reads "a b c" into exactly `n` unsigned numbers.
template <typename T>
bool Integers(std::string_view s, std::initializer_list<T*> out) {
  auto tokens = Tokens(s);
  if (tokens.size() != out.size()) return false;
  size_t i = 0;
  for (T* p : out)
    if (!Integer(tokens[i++], *p)) return false;
  return true;
}

// One parser per value type of the format; each is false when `s` is not such a value.
bool ParseU32(std::string_view s, uint32_t& v);
bool ParseU64(std::string_view s, uint64_t& v);
bool ParseI32(std::string_view s, int32_t& v);
bool ParseText(std::string_view s, std::string& v);
bool ParsePair(std::string_view s, std::pair<uint32_t, uint32_t>& v);
bool ParseIntPair(std::string_view s, std::pair<int32_t, int32_t>& v);
bool ParseUtilization(std::string_view s, UtilizationRates& v);
bool ParseMemory(std::string_view s, MemoryInfo& v);
bool ParseCpus(std::string_view s, std::vector<uint32_t>& v);
bool ParseAttributes(std::string_view s, Attributes& a);
bool ParsePci(std::string_view s, PciInfo& p);
bool ParseField(std::string_view s, FieldAnswer& f);
bool ParseProcess(std::string_view s, ProcessAnswer& p);
bool ParseProcessSample(std::string_view s, ProcessUtilization& u);

// Cuts "12.rest" into 12 and "rest"; false when `s` does not start that way.
bool CutIndex(std::string_view& s, uint32_t& index);
// Removes `prefix` from the front of `s`; false (and `s` unchanged) when it is not there.
bool Consume(std::string_view& s, std::string_view prefix);

}  // namespace kraken::nvml::capture_text
