#include "analysis/disagg/remote_link.h"

#include <array>
#include <cctype>
#include <optional>
#include <span>
#include <utility>

#include "base/text.h"

namespace kraken::disagg {
namespace {

// Splits "100Gbps" into the number and its unit.
std::pair<std::string_view, std::string_view> NumberAndUnit(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  return {s.substr(0, i), Trim(s.substr(i))};
}

struct Unit {
  const char* name;
  double scale;
};

std::optional<double> Scaled(std::string_view text, std::span<const Unit> units) {
  auto [number, unit] = NumberAndUnit(Trim(text));
  auto value = ParseDouble(number);
  if (!value || *value <= 0) return std::nullopt;
  for (const Unit& u : units)
    if (unit == u.name) return *value * u.scale;  // case matters: Gb (bits) vs GB (bytes)
  return std::nullopt;
}

constexpr std::array<Unit, 12> kBandwidthUnits = {{
    {"Tbps", 1e12 / 8}, {"Tb/s", 1e12 / 8}, {"Gbps", 1e9 / 8}, {"Gb/s", 1e9 / 8},
    {"gbps", 1e9 / 8},  {"Mbps", 1e6 / 8},  {"Mb/s", 1e6 / 8}, {"TB/s", 1e12},
    {"GB/s", 1e9},      {"GBps", 1e9},      {"MB/s", 1e6},     {"MBps", 1e6},
}};
constexpr std::array<Unit, 5> kLatencyUnits = {{{"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}}};

}  // namespace

Result<RemoteLink> ParseRemoteLink(std::string_view text) {
  auto parts = Split(text, ',');
  if (parts.size() != 2)
    return InvalidInput("--link expects BANDWIDTH,LATENCY (e.g. 100Gbps,5us), got '" + std::string(text) + "'");
  auto bandwidth = Scaled(parts[0], kBandwidthUnits);
  if (!bandwidth)
    return InvalidInput("--link bandwidth '" + std::string(Trim(parts[0])) +
                        "' is not a positive number with Gbps, Gb/s, Mbps, Tbps, GB/s or MB/s");
  auto latency_text = Trim(parts[1]);
  std::optional<double> latency = Scaled(latency_text, kLatencyUnits);
  if (!latency && latency_text.size() > 0 && latency_text[0] == '0') latency = 0.0;  // "0us"
  if (!latency)
    return InvalidInput("--link latency '" + std::string(latency_text) + "' is not a number with ns, us, ms or s");
  RemoteLink link;
  link.bytes_per_s = *bandwidth;
  link.latency_s = *latency;
  link.label = std::string(Trim(parts[0])) + "," + std::string(latency_text);
  return link;
}

std::vector<RemoteLink> DefaultRemoteLinks() {
  std::vector<RemoteLink> links;
  for (const char* text : {"100Gbps,5us", "25Gbps,10us", "400Gbps,2us"}) {
    auto link = ParseRemoteLink(text);
    if (link.ok()) links.push_back(*link);
  }
  return links;
}

}  // namespace kraken::disagg
