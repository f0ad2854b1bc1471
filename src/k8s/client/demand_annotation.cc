#include "k8s/client/demand_annotation.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/text.h"
#include "base/text_table.h"

namespace kraken::k8s {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr char kBasis[] = "kraken.io/demand annotation";

void Append(std::string* out, const char* key, const std::string& value) {
  *out += ';';
  *out += key;
  *out += '=';
  *out += value;
}

void SetStat(DemandStat* stat, double mean) {
  stat->measured = true;
  stat->mean = stat->p95 = stat->max = mean;
  stat->basis = kBasis;
}

// A value kraken's analyses accept: a finite, non-negative number (ratios at most 1).
std::optional<double> Number(std::string_view text, bool ratio) {
  std::optional<double> v = ParseDouble(text);
  if (!v || !std::isfinite(*v) || *v < 0 || (ratio && *v > 1)) return std::nullopt;
  return v;
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '/';
}

}  // namespace

std::string FormatDemandAnnotation(const WorkloadDemand& d) {
  // A MIG instance's ratios are of its slice, not of a GPU the extender could share.
  if (d.mig_instance_sm_count > 0 || d.mig_instance_memory_bytes > 0) return "";
  std::string out = kDemandVersion;
  if (!d.workload_type.empty()) Append(&out, "type", d.workload_type);
  const size_t without_figures = out.size();
  if (d.gpu_busy.measured) Append(&out, "busy", FormatFixed(std::clamp(d.gpu_busy.mean, 0.0, 1.0), 3));
  if (d.sm_active.measured) Append(&out, "sm", FormatFixed(std::clamp(d.sm_active.mean, 0.0, 1.0), 3));
  if (d.dram_active.measured) Append(&out, "dram", FormatFixed(std::clamp(d.dram_active.mean, 0.0, 1.0), 3));
  if (d.pcie_bytes_per_s.measured) Append(&out, "pcie-gbs", FormatFixed(d.pcie_bytes_per_s.mean / 1e9, 2));
  if (d.memory_bytes.measured) Append(&out, "mem-gib", FormatFixed(d.memory_bytes.max / kGiB, 1));
  if (d.compute_bound_share + d.memory_bound_share + d.latency_bound_share > 0) {
    Append(&out, "cb", FormatFixed(d.compute_bound_share, 3));
    Append(&out, "mb", FormatFixed(d.memory_bound_share, 3));
  }
  if (out.size() == without_figures) return "";
  if (!d.device_id.empty()) Append(&out, "dev", d.device_id);
  return out;
}

std::string ResidentEntry(const std::string& pod, int gpu, const std::string& demand_value) {
  std::string_view rest = demand_value;
  if (StartsWith(rest, kDemandVersion)) rest.remove_prefix(std::string_view(kDemandVersion).size());
  std::string out = kDemandVersion;
  Append(&out, "pod", pod);
  if (gpu >= 0) Append(&out, "gpu", std::to_string(gpu));
  return out + std::string(rest);
}

std::string FormatResidentDemand(const std::vector<std::string>& entries) {
  if (entries.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < entries.size() && i < kMaxResidentEntries; ++i) {
    if (i > 0) out += ',';
    out += entries[i];
  }
  return out;
}

std::optional<DemandEntry> ParseDemandEntry(std::string_view text, std::string* why) {
  std::vector<std::string_view> fields = Split(Trim(text), ';');
  if (fields.empty() || Trim(fields[0]) != kDemandVersion) {
    *why = "unknown version '" + std::string(fields.empty() ? "" : Trim(fields[0])) + "'";
    return std::nullopt;
  }
  DemandEntry e;
  e.demand.source_kind = "samples";
  e.demand.workload_type = "unknown";
  for (size_t i = 1; i < fields.size(); ++i) {
    std::string_view field = Trim(fields[i]);
    if (field.empty()) continue;
    size_t eq = field.find('=');
    if (eq == std::string_view::npos) {
      *why = "field '" + std::string(field) + "' has no '='";
      return std::nullopt;
    }
    std::string_view key = field.substr(0, eq), value = field.substr(eq + 1);
    auto bad = [&] {
      *why = "bad value in '" + std::string(field) + "'";
      return std::nullopt;
    };
    bool ratio = key == "busy" || key == "sm" || key == "dram" || key == "cb" || key == "mb";
    if (key == "type" || key == "pod" || key == "dev") {
      if (value.empty() || !std::all_of(value.begin(), value.end(), IsNameChar)) return bad();
      (key == "type" ? e.demand.workload_type : key == "pod" ? e.pod : e.demand.device_id) = std::string(value);
    } else if (key == "gpu") {
      std::optional<int64_t> gpu = ParseInt64(value);
      if (!gpu || *gpu < 0 || *gpu > 1023) return bad();
      e.gpu = static_cast<int>(*gpu);
    } else if (ratio || key == "pcie-gbs" || key == "mem-gib") {
      std::optional<double> v = Number(value, ratio);
      if (!v) return bad();
      if (key == "busy") SetStat(&e.demand.gpu_busy, *v);
      if (key == "sm") SetStat(&e.demand.sm_active, *v);
      if (key == "dram") SetStat(&e.demand.dram_active, *v);
      if (key == "pcie-gbs") SetStat(&e.demand.pcie_bytes_per_s, *v * 1e9);
      if (key == "mem-gib") SetStat(&e.demand.memory_bytes, *v * kGiB);
      if (key == "cb") e.demand.compute_bound_share = *v;
      if (key == "mb") e.demand.memory_bound_share = *v;
    }
    // Other keys of v1 are ignored: later writers may add fields a v1 reader can skip.
  }
  e.demand.name = e.pod;
  return e;
}

ResidentDemand ParseResidentDemand(std::string_view text) {
  ResidentDemand out;
  if (Trim(text) == "none") return out;
  for (std::string_view entry : Split(text, ',')) {
    if (Trim(entry).empty()) continue;
    std::string why;
    std::optional<DemandEntry> e = ParseDemandEntry(entry, &why);
    if (e) {
      out.entries.push_back(std::move(*e));
    } else {
      ++out.ignored;
      out.notes.push_back(why);
    }
  }
  return out;
}

}  // namespace kraken::k8s
