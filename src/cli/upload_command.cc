// `kraken upload [FILE...]`: sends profile files to the central API through the upload
// spool, and sends what earlier runs left in the spool (docs/upload.md). Exit 0 when the
// spool is empty afterwards, 1 when uploads are left waiting or were refused.
#include "app/upload_request.h"
#include "base/log.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/upload_flags.h"

namespace kraken::cli {
namespace {

struct UploadArgs {
  std::vector<std::string> files;
  ConfigFlags upload_flags;
};

int RunUpload(const UploadArgs& args) {
  auto settings = ResolveUploadSettings(args.upload_flags);
  if (!settings.ok()) return ReportError(settings.status());
  if (!settings->enabled()) return ReportError(InvalidInput("no API to upload to: give --upload-to URL (or upload.url)"));
  bool all_sent = true;
  auto say = [&](const app::ShipReport& report) {
    std::fprintf(stderr, "%s\n", report.Summary().c_str());
    if (!report.warning.empty()) Log(LogLevel::kWarn, "upload: %s", report.warning.c_str());
    all_sent = all_sent && report.sent.left == 0 && report.sent.rejected == 0 && report.warning.empty();
  };
  for (const std::string& file : args.files) say(app::ShipFile(file, *settings));
  if (args.files.empty()) say(app::DrainUploads(*settings));
  return all_sent ? kExitOk : kExitFailure;
}

}  // namespace

void AddUploadCommand(CLI::App& app, CommandList& commands) {
  auto args = std::make_shared<UploadArgs>();
  CLI::App* cmd = app.add_subcommand(
      "upload", "Send profile files, and the uploads still waiting in the spool, to the central kraken API");
  AddUploadFlags(cmd, args->upload_flags);
  cmd->add_option("files", args->files, "Profile files (any format kraken imports); none: only the spool is sent");
  commands.push_back({cmd, [args] { return RunUpload(*args); }});
}

}  // namespace kraken::cli
