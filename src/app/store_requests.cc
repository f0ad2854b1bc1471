#include "app/store_requests.h"

#include <algorithm>
#include <filesystem>

#include "app/export_request.h"
#include "app/store_access.h"
#include "base/json_writer.h"
#include "base/text.h"
#include "base/text_table.h"
#include "store/database.h"
#include "store/store_path.h"
#include "importers/registry.h"
#include "report/profile_summary.h"

namespace kraken {

std::string DescribeDevices(const std::vector<std::string>& names) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& name : names) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
    if (it == counts.end()) counts.push_back({name, 1});
    else ++it->second;
  }
  std::string text;
  for (const auto& [name, n] : counts)
    text += (text.empty() ? "" : ", ") + std::to_string(n) + "x " + (name.empty() ? "unnamed device" : name);
  return text;
}

namespace {

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
  json.EndArray().Field("device_summary", DescribeDevices(info.device_names)).Key("counts").BeginObject().Field("kernels", info.kernels).Field("memory_ops", info.memory_ops);
  json.Field("cpu_ops", info.cpu_ops).Field("runtime_calls", info.runtime_calls).Field("series", info.series);
  json.Field("samples", info.samples).EndObject();
  json.Key("start_ns");
  info.start_ns ? json.Int(*info.start_ns) : json.Null();
  json.Key("end_ns");
  info.end_ns ? json.Int(*info.end_ns) : json.Null();
  json.Field("duration_ns", info.duration_ns()).EndObject();
}

}  // namespace

Result<std::vector<Profile>> ImportFiles(const std::vector<std::string>& files, const InputOptions& options) {
  std::vector<Profile> profiles;
  for (const std::string& file : files) {
    ImportOptions import_options;
    import_options.forced_format = options.format;
    if (options.progress) import_options.progress = options.progress(file);
    auto result = ImportFile(BuiltinImporters(), file, import_options);
    if (options.after_import) options.after_import();
    if (!result.ok()) return result.status();
    for (auto& p : *result) profiles.push_back(std::move(p));
  }
  return profiles;
}

Result<std::vector<int64_t>> SaveProfiles(const std::string& db, const std::vector<Profile>& profiles) {
  KRAKEN_ASSIGN_OR_RETURN(auto store, OpenStoreForWriting(db));
  std::vector<int64_t> ids;
  for (const Profile& profile : profiles) {
    KRAKEN_ASSIGN_OR_RETURN(int64_t id, store->SaveProfile(profile));
    ids.push_back(id);
  }
  return ids;
}

std::string RenderImportJson(const std::vector<Profile>& profiles, const std::string& stored_db,
                             const std::vector<int64_t>& ids) {
  JsonWriter json;
  json.BeginObject().Key("profiles").BeginArray();
  for (const auto& p : profiles) WriteProfileSummaryJson(p, json);
  json.EndArray();
  if (!stored_db.empty()) {
    json.Field("db", stored_db).Key("stored_ids").BeginArray();
    for (int64_t id : ids) json.Int(id);
    json.EndArray();
  }
  json.EndObject();
  return json.Take() + "\n";
}

std::string RenderImportText(const std::vector<Profile>& profiles, const std::string& stored_db,
                             const std::vector<int64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < profiles.size(); ++i) {
    out += RenderProfileSummaryText(profiles[i]) + "\n";
    if (!stored_db.empty()) out += "stored as profile " + std::to_string(ids[i]) + " in " + stored_db + "\n\n";
  }
  return out;
}

Result<std::string> RenderProfileList(const std::string& db, bool json_output) {
  std::vector<StoredProfileInfo> profiles;
  std::string path = ResolveDbPath(db);
  // No database yet is an empty list, not an error: nothing was stored.
  if (store::IsPostgresUrl(path) || std::filesystem::exists(path)) {
    auto store = OpenStoreForReading(db);
    if (!store.ok()) return store.status();
    auto listed = (*store)->ListProfiles();
    if (!listed.ok()) return listed.status();
    profiles = std::move(listed).value();
  }
  path = StoreLocationForDisplay(path);
  std::string out;
  if (json_output) {
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
    for (const StoredProfileInfo& info : profiles) {
      std::string devices = DescribeDevices(info.device_names);
      table.AddRow({std::to_string(info.id), FormatUtc(info.created_ns), info.kind, info.format,
                    devices.empty() ? "-" : devices, std::to_string(info.kernels), std::to_string(info.series),
                    std::to_string(info.samples), DescribeDuration(info), info.source});
    }
    out = path + ": " + std::to_string(profiles.size()) + " profile(s)\n" + table.Render();
  }
  return out;
}


Status ExportProfile(ProfileStore& store, int64_t id, const std::string& format, const ChunkWriter& write) {
  KRAKEN_ASSIGN_OR_RETURN(std::vector<ExportFormat> formats, ParseExportFormats(format));
  if (formats.size() != 1) return InvalidInput("one format per document, not '" + format + "'");
  // The caller keeps the store open for the whole call: a non-owning handle.
  std::shared_ptr<ProfileStore> borrowed(&store, [](ProfileStore*) {});
  KRAKEN_ASSIGN_OR_RETURN(StoredExport stored, OpenStoredExport(borrowed, id));
  // One document: the profile (JSON) or its series' samples (the long CSV it always was).
  return WriteExportFile(stored.profile, stored.samples, {formats[0], ExportTable::kSamples, ""}, write);
}

}  // namespace kraken
