// `kraken import FILE...`: reads inputs and reports what they hold, without analysing.
#include <unistd.h>

#include <cstdio>

#include "base/json_writer.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "importers/registry.h"
#include "report/profile_summary.h"

namespace kraken::cli {

int RunImport(const ImportArgs& args) {
  std::vector<Profile> profiles;
  for (const std::string& file : args.files) {
    ImportOptions options;
    options.forced_format = args.format;
    options.progress = MakeProgress(file);
    auto result = ImportFile(BuiltinImporters(), file, options);
    if (::isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
    if (!result.ok()) return ReportError(result.status());
    for (auto& p : *result) profiles.push_back(std::move(p));
  }
  std::string out;
  if (args.json) {
    JsonWriter json;
    json.BeginObject().Key("profiles").BeginArray();
    for (const auto& p : profiles) WriteProfileSummaryJson(p, json);
    json.EndArray().EndObject();
    out = json.Take() + "\n";
  } else {
    for (const auto& p : profiles) out += RenderProfileSummaryText(p) + "\n";
  }
  Status status = WriteOutput("-", out);
  return status.ok() ? kExitOk : ReportError(status);
}

}  // namespace kraken::cli
