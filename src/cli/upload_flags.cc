#include "cli/upload_flags.h"

#include "base/log.h"

namespace kraken::cli {

void AddUploadFlags(CLI::App* cmd, ConfigFlags& flags, const std::string& token_flag) {
  flags.AddConfigFlag(cmd);
  AddUploadKeyFlags(cmd, flags, token_flag);
}

void AddUploadKeyFlags(CLI::App* cmd, ConfigFlags& flags, const std::string& token_flag) {
  flags.AddKeyFlag(cmd, "--upload-to", "upload.url",
                   "Also send the profile to this kraken API (http://HOST:PORT), through a spool on disk with "
                   "retries (docs/upload.md)");
  flags.AddKeyFlag(cmd, token_flag, "upload.token_file", "File holding the API's bearer token for --upload-to");
  flags.AddKeyFlag(cmd, "--upload-spool", "upload.spool",
                   "Folder where uploads wait for the API (default: $XDG_STATE_HOME/kraken/upload-spool)");
  flags.AddKeyFlag(cmd, "--upload-retry-for", "upload.retry_for",
                   "How long to retry an unreachable API before leaving the uploads spooled, e.g. 30s");
}

Result<app::UploadSettings> ResolveUploadSettings(const ConfigFlags& flags) {
  KRAKEN_ASSIGN_OR_RETURN(config::EffectiveConfig effective, flags.Resolve());
  app::UploadSettings settings = app::UploadSettingsFrom(effective.values);
  KRAKEN_RETURN_IF_ERROR(app::CheckUploadSettings(settings));
  return settings;
}

void ShipProfileAndSay(const Profile& profile, const std::string& name, const app::UploadSettings& settings) {
  if (!settings.enabled()) return;
  app::ShipReport report = app::ShipProfile(profile, name, settings);
  std::fprintf(stderr, "%s\n", report.Summary().c_str());
  if (!report.warning.empty()) Log(LogLevel::kWarn, "upload: %s", report.warning.c_str());
}

}  // namespace kraken::cli
