// Conventions every kraken command shares: exit codes, the one-line error format,
// progress on standard error.
#pragma once

#include <cstdint>
#include <string>

#include "app/profile_inputs.h"
#include "base/status.h"
#include "importers/importer.h"

namespace kraken::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // kraken itself failed (a bug, out of memory)
inline constexpr int kExitBadInput = 2;  // unusable input or usage; message names the file

// Prints "kraken: error: <message>" on one line to standard error and returns the
// exit code that goes with the status.
int ReportError(const Status& status);

// A progress reporter for one input file: prints "reading FILE: 45% (120 MB)" to
// standard error when it is a terminal, at most a few times per second.
ProgressFn MakeProgress(const std::string& path);

// How the CLI loads "FILE|ID..." arguments: progress on a terminal, the line cleared
// after each file; `format` forces an importer, `db` is the --db flag.
InputOptions CliInputOptions(const std::string& format, const std::string& db);

// Writes `content` to `path` atomically (temp file + rename) so that an interrupted run
// never leaves a half-written output; "-" writes to standard output.
Status WriteOutput(const std::string& path, const std::string& content);

// The end of a command that renders one document: its error (exit 2), or the document
// written by WriteOutput, with "kraken: wrote PATH" on stderr when PATH is a file.
int WriteCommandOutput(const std::string& path, const Result<std::string>& text);

}  // namespace kraken::cli
