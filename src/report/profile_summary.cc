#include "report/profile_summary.h"

#include "base/text_table.h"
#include "model/device_catalog.h"

namespace kraken {

namespace {

size_t CountSamples(const Profile& profile) {
  size_t n = 0;
  for (const auto& s : profile.series) n += s.samples.size();
  return n;
}

size_t CountMemoryOps(const Profile& profile, MemoryOpKind kind) {
  size_t n = 0;
  for (const auto& m : profile.memory_ops) n += m.kind == kind;
  return n;
}

}  // namespace

void WriteProfileSummaryJson(const Profile& profile, JsonWriter& json) {
  const auto& md = profile.metadata;
  json.BeginObject();
  json.Field("source", md.source).Field("format", md.format);
  json.Key("rank");
  md.rank ? json.Int(*md.rank) : json.Null();
  json.Key("world_size");
  md.world_size ? json.Int(*md.world_size) : json.Null();
  json.Field("vendor", VendorName(md.accelerator_vendor));
  json.Field("kernel_timestamps", md.kernel_timestamps_valid);
  json.Key("devices").BeginArray();
  for (const auto& d : profile.devices) {
    json.BeginObject().Field("index", d.index).Field("name", d.name);
    if (d.sm_count >= 0) json.Field("sm_count", d.sm_count);
    if (d.memory_bytes >= 0) json.Field("memory_bytes", d.memory_bytes);
    if (!d.uuid.empty()) json.Field("uuid", d.uuid);
    const DeviceSpec* spec = MatchDeviceSpec(d.name, d.memory_bytes);
    json.Key("catalog_match");
    spec ? json.String(spec->id) : json.Null();
    json.EndObject();
  }
  json.EndArray();
  json.Key("counts").BeginObject();
  json.Field("kernels", static_cast<uint64_t>(profile.kernels.size()));
  json.Field("memcpy", static_cast<uint64_t>(CountMemoryOps(profile, MemoryOpKind::kMemcpy)));
  json.Field("memset", static_cast<uint64_t>(CountMemoryOps(profile, MemoryOpKind::kMemset)));
  json.Field("cpu_ops", static_cast<uint64_t>(profile.cpu_ops.size()));
  json.Field("runtime_calls", static_cast<uint64_t>(profile.runtime_calls.size()));
  json.Field("steps", static_cast<uint64_t>(profile.steps.size()));
  json.Field("syncs", static_cast<uint64_t>(profile.syncs.size()));
  json.Field("profiler_ranges", static_cast<uint64_t>(profile.profiler_ranges.size()));
  json.Field("kernel_counters", static_cast<uint64_t>(profile.kernel_counters.size()));
  json.Field("kernel_labels", static_cast<uint64_t>(profile.kernel_labels.size()));
  json.Field("metric_declarations", static_cast<uint64_t>(profile.metric_declarations.size()));
  json.Field("series", static_cast<uint64_t>(profile.series.size()));
  json.Field("samples", static_cast<uint64_t>(CountSamples(profile)));
  json.EndObject();
  json.Key("import_counters").BeginObject();
  for (const auto& [name, value] : profile.import_counters) json.Field(name, value);
  json.EndObject();
  json.Key("attributes").BeginObject();
  for (const auto& [name, value] : md.attributes) json.Field(name, value);
  json.EndObject();
  json.EndObject();
}

std::string RenderProfileSummaryText(const Profile& profile) {
  const auto& md = profile.metadata;
  std::string out = md.source + "  [" + md.format + "]";
  if (md.rank) out += "  rank " + std::to_string(*md.rank);
  if (md.world_size) out += " of " + std::to_string(*md.world_size);
  out += "\n";
  for (const auto& d : profile.devices) {
    const DeviceSpec* spec = MatchDeviceSpec(d.name, d.memory_bytes);
    out += "  device " + std::to_string(d.index) + ": " + d.name;
    if (d.sm_count > 0) out += ", " + std::to_string(d.sm_count) + " SMs";
    out += spec ? "  (catalog: " + spec->id + ")" : "  (not in the device catalog)";
    out += "\n";
  }
  TextTable counts({"records", "count"}, {TextTable::Align::kLeft, TextTable::Align::kRight});
  auto row = [&](const char* name, size_t n) {
    if (n > 0) counts.AddRow({name, std::to_string(n)});
  };
  row("kernels", profile.kernels.size());
  row("memcpy", CountMemoryOps(profile, MemoryOpKind::kMemcpy));
  row("memset", CountMemoryOps(profile, MemoryOpKind::kMemset));
  row("cpu ops and annotations", profile.cpu_ops.size());
  row("runtime calls", profile.runtime_calls.size());
  row("profiler steps", profile.steps.size());
  row("syncs", profile.syncs.size());
  row("profiler ranges", profile.profiler_ranges.size());
  row("kernels with hardware counters", profile.kernel_counters.size());
  row("kernel labels from another tool", profile.kernel_labels.size());
  row("metric declarations", profile.metric_declarations.size());
  row("metric series", profile.series.size());
  row("metric samples", CountSamples(profile));
  out += counts.Render();
  if (!profile.import_counters.empty()) {
    TextTable counters({"import counter", "value"}, {TextTable::Align::kLeft, TextTable::Align::kRight});
    for (const auto& [name, value] : profile.import_counters) counters.AddRow({name, std::to_string(value)});
    out += counters.Render();
  }
  return out;
}

}  // namespace kraken
