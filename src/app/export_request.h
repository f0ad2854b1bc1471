// `kraken export`: a profile (stored, or imported from any file kraken reads) written as
// JSON (the whole profile, one document), CSV and/or Parquet (one flat table a file, see
// report/export_tables.h), several formats at once. The files of an export are named from
// one prefix (docs/export.md):
//   PREFIX.json             the whole profile
//   PREFIX.TABLE.csv        one per table with rows (kernels, memory_ops, cpu_ops, steps, samples)
//   PREFIX.TABLE.parquet    the same rows as the CSV of that table
// The CLI (`kraken export`) and the C API (kraken_export_profile) write through here.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/profile.h"
#include "report/export_tables.h"
#include "store/store.h"

namespace kraken {

enum class ExportFormat { kJson, kCsv, kParquet };
const char* ExportFormatName(ExportFormat format);  // "json", "csv", "parquet"

// "json,csv,parquet" (any order, each once) -> the formats; anything else is an error
// naming the flag and the formats kraken writes.
Result<std::vector<ExportFormat>> ParseExportFormats(std::string_view list);
// "kernels,steps" -> those tables; empty -> none (every table with rows).
Result<std::vector<ExportTable>> ParseExportTables(std::string_view list);

// One file of an export: its format, its table (CSV and Parquet) and the name's ending
// after the prefix (".json", ".kernels.csv").
struct ExportFile {
  ExportFormat format = ExportFormat::kJson;
  ExportTable table = ExportTable::kSamples;  // unused for JSON
  std::string suffix;
};

// The files exporting `profile` in `formats` makes: for CSV and Parquet one per table of
// `tables`, or when `tables` is empty one per table that has rows (the samples table when
// none has: a profile with nothing in it still exports its empty series table).
std::vector<ExportFile> PlanExportFiles(const Profile& profile, const std::vector<ExportFormat>& formats,
                                        const std::vector<ExportTable>& tables);

// Writes one file of the export through `write`, a piece at a time; the samples come from
// `samples` one series at a time.
using ChunkWriter = std::function<Status(std::string_view chunk)>;
Status WriteExportFile(const Profile& profile, const SampleReader& samples, const ExportFile& file,
                       const ChunkWriter& write);

// The samples of a profile held in memory (an imported file).
SampleReader ProfileSamples(const Profile& profile);

// A stored profile without its samples, and a reader of them from the store: how a
// day-long capture is exported without being loaded whole.
struct StoredExport {
  Profile profile;
  SampleReader samples;
};
Result<StoredExport> OpenStoredExport(std::shared_ptr<ProfileStore> store, int64_t id);

// The prefix an export of file `input` gets when no --output names one: its name without
// the folders and the compression and format endings, plus ".kraken" (so that exporting
// profile_data.json writes profile_data.kraken.json beside, never over, the input).
std::string DefaultExportPrefix(const std::string& input);

}  // namespace kraken
