// `kraken list`: the profiles in the store, oldest first.
#include <algorithm>
#include <filesystem>

#include "base/json_writer.h"
#include "base/text_table.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct ListArgs {
  std::string db;
  bool json = false;
};

// "8x NVIDIA H100 80GB HBM3", "2x A100, 1x T4".
std::string DescribeDevices(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& name : names) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) counts.push_back({name, 1});
    else ++it->second;
  }
  std::string text;
  for (const auto& [name, n] : counts)
    text += (text.empty() ? "" : ", ") + std::to_string(n) + "x " + (name.empty() ? "unnamed" : name);
  return text.empty() ? "-" : text;
}

std::string DescribeDuration(const StoredProfileInfo& info) {
  if (!info.start_ns || !info.end_ns) return "-";
  double seconds = static_cast<double>(info.duration_ns()) / 1e9;
  if (seconds >= 3600) return FormatFixed(seconds / 3600, 1) + " h";
  if (seconds >= 60) return FormatFixed(seconds / 60, 1) + " min";
  if (seconds >= 1) return FormatFixed(seconds, 1) + " s";
  return FormatFixed(seconds * 1e3, 1) + " ms";
}

void WriteInfoJson(const StoredProfileInfo& info, JsonWriter& json) {
  json.BeginObject().Field("id", info.id).Field("created_ns", info.created_ns);
  json.Field("created", FormatUtc(info.created_ns)).Field("kind", info.kind).Field("format", info.format);
  json.Field("source", info.source).Field("hostname", info.hostname).Key("devices").BeginArray();
  for (const std::string& name : info.device_names) json.String(name);
  json.EndArray().Key("counts").BeginObject().Field("kernels", info.kernels).Field("memory_ops", info.memory_ops);
  json.Field("cpu_ops", info.cpu_ops).Field("runtime_calls", info.runtime_calls).Field("series", info.series);
  json.Field("samples", info.samples).EndObject();
  json.Key("start_ns");
  info.start_ns ? json.Int(*info.start_ns) : json.Null();
  json.Key("end_ns");
  info.end_ns ? json.Int(*info.end_ns) : json.Null();
  json.Field("duration_ns", info.duration_ns()).EndObject();
}

int RunList(const ListArgs& args) {
  std::vector<StoredProfileInfo> profiles;
  std::string path = ResolveDbPath(args.db);
  // No database yet is an empty list, not an error: nothing was stored.
  if (std::filesystem::exists(path)) {
    auto store = OpenStoreForReading(args.db);
    if (!store.ok()) return ReportError(store.status());
    auto listed = (*store)->ListProfiles();
    if (!listed.ok()) return ReportError(listed.status());
    profiles = std::move(listed).value();
  }
  std::string out;
  if (args.json) {
    JsonWriter json;
    json.BeginObject().Field("db", path).Key("profiles").BeginArray();
    for (const StoredProfileInfo& info : profiles) WriteInfoJson(info, json);
    json.EndArray().EndObject();
    out = json.Take() + "\n";
  } else if (profiles.empty()) {
    out = "no profiles in " + path + "\n";
  } else {
    using A = TextTable::Align;
    TextTable table({"id", "created", "kind", "format", "devices", "kernels", "series", "samples", "span", "source"},
                    {A::kRight, A::kLeft, A::kLeft, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight,
                     A::kLeft});
    table.SetMaxWidth(4, 32);
    table.SetMaxWidth(9, 60);
    for (const StoredProfileInfo& info : profiles)
      table.AddRow({std::to_string(info.id), FormatUtc(info.created_ns), info.kind, info.format,
                    DescribeDevices(info.device_names), std::to_string(info.kernels), std::to_string(info.series),
                    std::to_string(info.samples), DescribeDuration(info), info.source});
    out = path + ": " + std::to_string(profiles.size()) + " profile(s)\n" + table.Render();
  }
  Status status = WriteOutput("-", out);
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace

void AddListCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* cmd = app.add_subcommand("list", "List the profiles in the profile database");
  AddDbOption(cmd, &args->db);
  cmd->add_flag("--json", args->json, "Print one JSON document (keys: docs/store.md)");
  commands.push_back({cmd, [args] { return RunList(*args); }});
}

}  // namespace kraken::cli
