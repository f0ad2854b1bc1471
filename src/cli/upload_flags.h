// The upload flags of `kraken profile` and `kraken trial` (docs/upload.md): --upload-to,
// --token-file and --upload-spool, mirrors of the config keys upload.* (with --config
// FILE), and the line each run prints on standard error after it shipped its profile.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "app/upload_request.h"
#include "cli/config_flags.h"

namespace kraken::cli {

// `token_flag`: "--token-file", or another name where the command has one already
// (`kraken trial`'s --token-file is the Kubernetes API's: there it is --upload-token-file).
void AddUploadFlags(CLI::App* cmd, ConfigFlags& flags, const std::string& token_flag = "--token-file");

// The same flags without --config, for a command that has it already (`kraken agent`).
void AddUploadKeyFlags(CLI::App* cmd, ConfigFlags& flags, const std::string& token_flag = "--token-file");

// The effective upload settings, checked (URL form, token file readable) before the run.
Result<app::UploadSettings> ResolveUploadSettings(const ConfigFlags& flags);

// Ships `profile` and prints the summary, and a warning when something is left waiting,
// on standard error. Never fails the command: the run's own output is already written.
void ShipProfileAndSay(const Profile& profile, const std::string& name, const app::UploadSettings& settings);

}  // namespace kraken::cli
