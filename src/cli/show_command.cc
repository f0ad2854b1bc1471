// `kraken show ID`: one stored profile's metadata, devices, counts and series (with each
// series' statistics, from the stored block aggregates: nothing is decoded).
#include <cmath>

#include "base/json_writer.h"
#include "base/text_table.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"
#include "report/profile_export.h"
#include "report/profile_summary.h"

namespace kraken::cli {
namespace {

struct ShowArgs {
  std::string id;
  std::string db;
  bool json = false;
};

// Counts of every record kind, in the order docs/store.md lists them.
std::vector<std::pair<const char*, int64_t>> Counts(const Profile& p, const StoredProfileInfo& info) {
  auto n = [](const auto& v) { return static_cast<int64_t>(v.size()); };
  return {{"kernels", n(p.kernels)},
          {"memory_ops", n(p.memory_ops)},
          {"cpu_ops", n(p.cpu_ops)},
          {"runtime_calls", n(p.runtime_calls)},
          {"steps", n(p.steps)},
          {"syncs", n(p.syncs)},
          {"kernel_counters", n(p.kernel_counters)},
          {"collectives", n(p.collectives)},
          {"profiler_ranges", n(p.profiler_ranges)},
          {"series", n(p.series)},
          {"samples", info.samples},
          {"metric_declarations", n(p.metric_declarations)},
          {"kernel_labels", n(p.kernel_labels)}};
}

std::string Number(double value) {
  if (std::isnan(value)) return "-";
  if (value == std::floor(value) && std::fabs(value) < 1e15) return FormatFixed(value, 0);
  return FormatFixed(value, std::fabs(value) >= 100 ? 1 : 3);
}

std::string RenderText(const Profile& p, const StoredProfileInfo& info, const std::vector<StoredSeriesStats>& series) {
  const ProfileMetadata& md = p.metadata;
  std::string out = "profile " + std::to_string(info.id) + ": " + info.kind + " " + md.format + ", stored " +
                    FormatUtc(info.created_ns) + "\n";
  out += "  source: " + md.source + "\n";
  if (!md.hostname.empty()) out += "  host: " + md.hostname + "\n";
  if (md.rank)
    out += "  rank: " + std::to_string(*md.rank) + (md.world_size ? " of " + std::to_string(*md.world_size) : "") +
           "\n";
  out += std::string("  vendor: ") + VendorName(md.accelerator_vendor) + "\n";
  if (info.start_ns && info.end_ns)
    out += "  span: " + std::to_string(*info.start_ns) + " .. " + std::to_string(*info.end_ns) + " ns (" +
           FormatFixed(static_cast<double>(info.duration_ns()) / 1e9, 3) + " s)\n";
  for (const auto& [key, value] : md.attributes) out += "  " + key + ": " + value + "\n";
  out += "devices: " + std::to_string(p.devices.size()) + "\n";
  if (!p.devices.empty()) {
    TextTable devices({"index", "name", "uuid", "memory GiB", "MIG instances"},
                      {TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kLeft,
                       TextTable::Align::kRight, TextTable::Align::kRight});
    for (const DeviceInfo& d : p.devices)
      devices.AddRow({std::to_string(d.index), d.name, d.uuid.empty() ? "-" : d.uuid,
                      d.memory_bytes >= 0 ? FormatFixed(static_cast<double>(d.memory_bytes) / (1 << 30), 1) : "-",
                      std::to_string(d.mig_instances.size())});
    out += devices.Render();
  }
  out += "counts:";
  for (const auto& [name, count] : Counts(p, info))
    if (count > 0) out += std::string(" ") + name + " " + std::to_string(count);
  out += "\n";
  if (!p.import_counters.empty()) {
    out += "import counters:";
    for (const auto& [name, count] : p.import_counters) out += " " + name + " " + std::to_string(count);
    out += "\n";
  }
  if (series.empty()) return out;
  out += "series: " + std::to_string(series.size()) + "\n";
  using A = TextTable::Align;
  TextTable table({"#", "metric", "unit", "entity", "source name", "samples", "min", "mean", "max"},
                  {A::kRight, A::kLeft, A::kLeft, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight});
  table.SetMaxWidth(4, 40);
  for (size_t i = 0; i < series.size(); ++i) {
    const StoredSeriesStats& s = series[i];
    const MetricInfo& metric = GetMetricInfo(s.metric);
    table.AddRow({std::to_string(i), std::string(metric.name), std::string(metric.unit), DescribeEntity(s.entity),
                  s.source_name.empty() ? "-" : s.source_name, std::to_string(s.samples), Number(s.min),
                  Number(s.mean), Number(s.max)});
  }
  return out + table.Render();
}

std::string RenderJson(const Profile& p, const StoredProfileInfo& info, const std::vector<StoredSeriesStats>& series) {
  JsonWriter json;
  json.BeginObject().Field("id", info.id).Field("kind", info.kind).Field("created_ns", info.created_ns);
  json.Key("metadata");
  WriteMetadataJson(p.metadata, json);
  json.Key("start_ns");
  info.start_ns ? json.Int(*info.start_ns) : json.Null();
  json.Key("end_ns");
  info.end_ns ? json.Int(*info.end_ns) : json.Null();
  json.Key("devices").BeginArray();
  for (const DeviceInfo& d : p.devices) WriteDeviceJson(d, json);
  json.EndArray().Key("counts").BeginObject();
  for (const auto& [name, count] : Counts(p, info)) json.Field(name, count);
  json.EndObject().Key("import_counters").BeginObject();
  for (const auto& [name, count] : p.import_counters) json.Field(name, count);
  json.EndObject().Key("series").BeginArray();
  for (size_t i = 0; i < series.size(); ++i) {
    const StoredSeriesStats& s = series[i];
    const MetricInfo& metric = GetMetricInfo(s.metric);
    json.BeginObject().Field("index", static_cast<int64_t>(i)).Field("metric", metric.name);
    json.Field("unit", metric.unit).Field("source_name", s.source_name).Key("entity");
    WriteEntityJson(s.entity, json);
    json.Field("samples", s.samples).Field("first_ns", s.first_ns).Field("last_ns", s.last_ns);
    json.Field("min", s.min).Field("mean", s.mean).Field("max", s.max).EndObject();
  }
  json.EndArray().EndObject();
  return json.Take() + "\n";
}

int RunShow(const ShowArgs& args) {
  auto id = ParseProfileId(args.id);
  if (!id.ok()) return ReportError(id.status());
  auto store = OpenStoreForReading(args.db);
  if (!store.ok()) return ReportError(store.status());
  auto info = (*store)->GetProfileInfo(*id);
  if (!info.ok()) return ReportError(info.status());
  auto profile = (*store)->LoadProfile(*id, {.samples = false});
  if (!profile.ok()) return ReportError(profile.status());
  auto series = (*store)->ListSeries(*id);
  if (!series.ok()) return ReportError(series.status());
  std::string out = args.json ? RenderJson(*profile, *info, *series) : RenderText(*profile, *info, *series);
  Status status = WriteOutput("-", out);
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace

void AddShowCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* cmd = app.add_subcommand("show", "Show one stored profile: metadata, devices, counts, series");
  cmd->add_option("id", args->id, "Profile id (see `kraken list`)")->required();
  AddDbOption(cmd, &args->db);
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/store.md)");
  commands.push_back({cmd, [args] { return RunShow(*args); }});
}

}  // namespace kraken::cli
