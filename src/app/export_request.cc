#include "app/export_request.h"

#include <algorithm>
#include <filesystem>

#include "base/json_writer.h"
#include "base/text.h"
#include "report/profile_export.h"

namespace kraken {
namespace {

constexpr ExportFormat kFormats[] = {ExportFormat::kJson, ExportFormat::kCsv, ExportFormat::kParquet};

std::vector<std::string_view> SplitList(std::string_view list) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t comma = list.find(',', start);
    std::string_view part = Trim(list.substr(start, comma == std::string_view::npos ? comma : comma - start));
    parts.push_back(part);
    if (comma == std::string_view::npos) return parts;
    start = comma + 1;
  }
}

std::string TableNames() {
  std::string names;
  for (const ExportTableInfo& t : ExportTables()) names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

Status WriteJson(const Profile& profile, const SampleReader& samples, const ChunkWriter& write) {
  JsonWriter json(false);
  BeginProfileJson(profile, json);
  KRAKEN_RETURN_IF_ERROR(write(json.Take()));
  for (size_t i = 0; i < profile.series.size(); ++i) {
    KRAKEN_ASSIGN_OR_RETURN(std::vector<Sample> series_samples, samples(i));
    WriteSeriesJson(profile.series[i], series_samples, json);
    KRAKEN_RETURN_IF_ERROR(write(json.Take()));
  }
  EndProfileJson(json);
  return write(json.Take() + "\n");
}

}  // namespace

const char* ExportFormatName(ExportFormat format) {
  switch (format) {
    case ExportFormat::kJson: return "json";
    case ExportFormat::kCsv: return "csv";
    case ExportFormat::kParquet: return "parquet";
  }
  return "?";
}

Result<std::vector<ExportFormat>> ParseExportFormats(std::string_view list) {
  std::vector<ExportFormat> formats;
  for (std::string_view part : SplitList(list)) {
    auto known = std::find_if(std::begin(kFormats), std::end(kFormats),
                              [part](ExportFormat f) { return part == ExportFormatName(f); });
    if (known == std::end(kFormats))
      return InvalidInput("--format: unknown format '" + std::string(part) +
                          "' (kraken exports json, csv and parquet, e.g. --format json,csv,parquet)");
    if (std::find(formats.begin(), formats.end(), *known) != formats.end())
      return InvalidInput("--format: '" + std::string(part) + "' is given twice");
    formats.push_back(*known);
  }
  return formats;
}

Result<std::vector<ExportTable>> ParseExportTables(std::string_view list) {
  std::vector<ExportTable> tables;
  if (Trim(list).empty()) return tables;
  for (std::string_view part : SplitList(list)) {
    const ExportTableInfo* info = FindExportTable(part);
    if (info == nullptr)
      return InvalidInput("--table: unknown table '" + std::string(part) + "' (tables: " + TableNames() + ")");
    if (std::find(tables.begin(), tables.end(), info->table) == tables.end()) tables.push_back(info->table);
  }
  return tables;
}

std::vector<ExportFile> PlanExportFiles(const Profile& profile, const std::vector<ExportFormat>& formats,
                                        const std::vector<ExportTable>& tables) {
  std::vector<ExportTable> chosen = tables;
  if (chosen.empty()) {
    for (const ExportTableInfo& t : ExportTables())
      if (ExportTableHasRows(profile, t.table)) chosen.push_back(t.table);
    if (chosen.empty()) chosen.push_back(ExportTable::kSamples);
  }
  std::vector<ExportFile> files;
  for (ExportFormat format : formats) {
    if (format == ExportFormat::kJson) {
      files.push_back({format, ExportTable::kSamples, ".json"});
      continue;
    }
    for (ExportTable table : chosen) {
      std::string suffix = ".";
      suffix += ExportTables()[static_cast<size_t>(table)].name;
      suffix += '.';
      suffix += ExportFormatName(format);
      files.push_back({format, table, suffix});
    }
  }
  return files;
}

Status WriteExportFile(const Profile& profile, const SampleReader& samples, const ExportFile& file,
                       const ChunkWriter& write) {
  if (file.format == ExportFormat::kJson) return WriteJson(profile, samples, write);
  const ExportTableInfo& table = ExportTables()[static_cast<size_t>(file.table)];
  std::unique_ptr<TableSink> sink =
      file.format == ExportFormat::kCsv ? MakeCsvTableSink(table, write) : MakeParquetTableSink(table, write);
  KRAKEN_RETURN_IF_ERROR(WriteExportTable(profile, file.table, samples, *sink));
  return sink->Finish();
}

SampleReader ProfileSamples(const Profile& profile) {
  return [&profile](size_t index) -> Result<std::vector<Sample>> { return profile.series.at(index).samples; };
}

Result<StoredExport> OpenStoredExport(std::shared_ptr<ProfileStore> store, int64_t id) {
  KRAKEN_ASSIGN_OR_RETURN(Profile profile, store->LoadProfile(id, {.samples = false}));
  KRAKEN_ASSIGN_OR_RETURN(std::vector<StoredSeriesStats> series, store->ListSeries(id));
  if (series.size() != profile.series.size())
    return Status(StatusCode::kInternal, "profile " + std::to_string(id) + " changed while being exported");
  StoredExport stored{std::move(profile), {}};
  stored.samples = [store, series = std::move(series)](size_t index) {
    return store->ReadSeriesSamples(series.at(index).series_id);
  };
  return stored;
}

std::string DefaultExportPrefix(const std::string& input) {
  std::string name = std::filesystem::path(input).filename().string();
  for (std::string_view ending : {".gz", ".zst", ".json", ".csv", ".txt", ".prom", ".nvml", ".db"})
    if (name.size() > ending.size() && name.ends_with(ending)) name.resize(name.size() - ending.size());
  return name + ".kraken";
}

}  // namespace kraken
