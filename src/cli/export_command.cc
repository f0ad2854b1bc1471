// `kraken export ID|FILE [--format json,csv,parquet] [-o FILE|DIR|PREFIX]` and the KRAKEN
// spelling `kraken export --input FILE --format json,csv,parquet`: a stored profile or any
// file kraken imports, as JSON (the whole profile) and/or CSV and Parquet tables, several
// formats at once (file naming: app/export_request.h, docs/export.md). Every file is
// written to a temporary name and renamed only once all of them are complete.
#include <cstdio>
#include <filesystem>

#include "app/export_request.h"
#include "app/store_requests.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/output_file.h"
#include "cli/store_access.h"

namespace kraken::cli {
namespace {

struct ExportArgs {
  std::string profile;  // positional: a stored id or a file
  std::string input;    // --input FILE
  std::string db;
  std::string format = "json";
  std::string tables;
  std::string output;
  std::string import_format;
};

// What is exported: the profiles and where their samples come from.
struct ExportSources {
  std::vector<Profile> profiles;
  std::vector<SampleReader> samples;
  std::string input_file;      // empty for a stored profile
  std::string default_prefix;  // when no --output names one
};

Result<ExportSources> LoadSources(const ExportArgs& args) {
  if (!args.profile.empty() && !args.input.empty())
    return InvalidInput("give a stored profile id or --input FILE, not both");
  if (args.profile.empty() && args.input.empty())
    return InvalidInput("nothing to export: give a stored profile id or --input FILE");
  ExportSources sources;
  const std::string& argument = args.input.empty() ? args.profile : args.input;
  if (args.input.empty() && IsStoredProfileArgument(argument)) {
    KRAKEN_ASSIGN_OR_RETURN(int64_t id, ParseProfileId(argument));
    KRAKEN_ASSIGN_OR_RETURN(std::unique_ptr<ProfileStore> store, OpenStoreForReading(args.db));
    KRAKEN_ASSIGN_OR_RETURN(StoredExport stored, OpenStoredExport(std::move(store), id));
    sources.profiles.push_back(std::move(stored.profile));
    sources.samples.push_back(std::move(stored.samples));
    sources.default_prefix = "profile-" + std::to_string(id) + ".kraken";
    return sources;
  }
  KRAKEN_ASSIGN_OR_RETURN(sources.profiles, ImportFiles({argument}, CliInputOptions(args.import_format, args.db)));
  for (const Profile& p : sources.profiles) sources.samples.push_back(ProfileSamples(p));
  sources.input_file = argument;
  sources.default_prefix = DefaultExportPrefix(argument);
  return sources;
}

bool NamesOneFile(const std::string& output) {
  if (output == "-") return true;
  if (std::filesystem::is_directory(output)) return false;
  for (const char* ending : {".json", ".csv", ".parquet"})
    if (output.ends_with(ending)) return true;
  return false;
}

struct PlannedFile {
  size_t profile = 0;
  ExportFile file;
  std::string path;
};

std::string FileList(const std::vector<PlannedFile>& planned) {
  std::string list;
  for (const PlannedFile& p : planned) list += (list.empty() ? "" : ", ") + p.path;
  return list;
}

// Every file of the export with its path: one file (stdout or a named file) or PREFIX.*.
Result<std::vector<PlannedFile>> PlanFiles(const ExportArgs& args, const ExportSources& sources,
                                           const std::vector<ExportFormat>& formats,
                                           const std::vector<ExportTable>& tables) {
  std::string output = args.output;
  // A stored profile in one format goes to standard output unless told otherwise, as before.
  if (output.empty() && sources.input_file.empty() && formats.size() == 1) output = "-";
  bool one_file = !output.empty() && NamesOneFile(output);
  std::string prefix = output.empty() ? sources.default_prefix : output;
  if (!output.empty() && !one_file && (std::filesystem::is_directory(output) || output.ends_with('/')))
    prefix = (std::filesystem::path(output) / sources.default_prefix).string();
  std::vector<PlannedFile> planned;
  for (size_t i = 0; i < sources.profiles.size(); ++i) {
    // An archive of several ranks: PREFIX-1.*, PREFIX-2.*, ...
    std::string base = sources.profiles.size() > 1 ? prefix + "-" + std::to_string(i + 1) : prefix;
    for (ExportFile& file : PlanExportFiles(sources.profiles[i], formats, tables))
      planned.push_back({i, file, one_file ? output : base + file.suffix});
  }
  if (one_file && planned.size() != 1)
    return InvalidInput("--output " + output + " names one file but this export makes " +
                        std::to_string(planned.size()) + " (" + FileList(planned) +
                        "): pick one with --table and one --format, or give a folder or prefix");
  if (one_file && output != "-" && !output.ends_with(ExportFormatName(planned[0].file.format)))
    return InvalidInput("--output " + output + " does not end in ." + ExportFormatName(planned[0].file.format));
  std::error_code ec;
  for (const PlannedFile& p : planned)
    if (!sources.input_file.empty() && std::filesystem::equivalent(p.path, sources.input_file, ec))
      return InvalidInput(p.path + ": the export would overwrite its own input; give --output");
  return planned;
}

int RunExport(const ExportArgs& args) {
  // Flags first: a typo fails before the (slow) import and writes nothing.
  auto formats = ParseExportFormats(args.format);
  if (!formats.ok()) return ReportError(formats.status());
  auto tables = ParseExportTables(args.tables);
  if (!tables.ok()) return ReportError(tables.status());
  auto sources = LoadSources(args);
  if (!sources.ok()) return ReportError(sources.status());
  auto planned = PlanFiles(args, *sources, *formats, *tables);
  if (!planned.ok()) return ReportError(planned.status());
  // All files are written under temporary names; any failure removes them all.
  std::vector<std::unique_ptr<OutputFile>> outputs;
  for (const PlannedFile& p : *planned) {
    auto out = OutputFile::Open(p.path);
    if (!out.ok()) return ReportError(out.status());
    OutputFile& file = **out;
    outputs.push_back(std::move(out).value());
    Status written = WriteExportFile(sources->profiles[p.profile], sources->samples[p.profile], p.file,
                                     [&file](std::string_view chunk) { return file.Write(chunk); });
    if (!written.ok()) return ReportError(written);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (Status done = outputs[i]->Finish(); !done.ok()) return ReportError(done);
    const std::string& path = (*planned)[i].path;
    if (path != "-") std::fprintf(stderr, "kraken: wrote %s\n", path.c_str());
  }
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a profile (stored, or any file kraken imports) as JSON, CSV and/or Parquet tables");
  cmd->add_option("profile", args->profile, "Stored profile id (see `kraken list`) or a file to import");
  cmd->add_option("-i,--input", args->input, "File to import and export (anything `kraken analyze` reads)");
  AddDbOption(cmd, &args->db);
  cmd->add_option("--format", args->format,
                  "Comma-separated: json (the whole profile, keys in docs/store.md), csv and parquet (one flat "
                  "table a file: kernels, memory_ops, cpu_ops, steps, samples; columns in docs/export.md)")
      ->capture_default_str();
  cmd->add_option("--table", args->tables,
                  "Comma-separated tables for csv/parquet (default: every table that has rows)");
  cmd->add_option("-o,--output", args->output,
                  "Where to write. A folder or a PREFIX: PREFIX.json, PREFIX.TABLE.csv, PREFIX.TABLE.parquet "
                  "(default prefix: the input's name + .kraken in the current folder, or profile-ID.kraken). "
                  "One FILE ending in .json/.csv/.parquet, or - for standard output, when the export is one "
                  "file (a stored id in one format goes to standard output by default)");
  cmd->add_option("--import-format", args->import_format, "Force an importer for --input (see `kraken formats`)");
  commands.push_back({cmd, [args] { return RunExport(*args); }});
}

}  // namespace kraken::cli
